; Markup names (code_intel.explore.markup): @attribute each attribute of a tag (the judge reads its name and
; value: class, id, a Vue binding, a Svelte class directive; Vue and Svelte files are read with this grammar
; too), @style and @script the text of an embedded block
; (@style_tag its start tag, for a lang attribute). A comment holds no tag, so no name.
(attribute) @attribute
(style_element (start_tag) @style_tag (raw_text) @style)
(script_element (raw_text) @script)
