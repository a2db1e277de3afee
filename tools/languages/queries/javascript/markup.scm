; Markup names in scripts (code_intel.explore.markup). A string by what it holds: @id an element id, @classes class
; names, @selector a CSS selector, @traversal a jQuery selector that counts when it starts with `.` or `#`;
; @jsx.class / @jsx.id a JSX attribute's value (a string, or an expression whose strings, object keys and CSS
; module members are names); @html a string that may hold HTML tags (read with the HTML grammar).
(call_expression
  function: [(identifier) @_f (member_expression property: (property_identifier) @_f)] (#eq? @_f "getElementById")
  arguments: (arguments . [(string) (template_string)] @id))
(call_expression
  function: [(identifier) @_f (member_expression property: (property_identifier) @_f)] (#eq? @_f "getElementsByClassName")
  arguments: (arguments . [(string) (template_string)] @classes))
(call_expression
  function: [(identifier) @_f (member_expression property: (property_identifier) @_f)]
  (#any-of? @_f "querySelector" "querySelectorAll" "closest" "matches")
  arguments: (arguments . [(string) (template_string)] @selector))
(call_expression
  function: (identifier) @_f (#any-of? @_f "$" "jQuery")
  arguments: (arguments . [(string) (template_string)] @selector))
(call_expression
  function: (member_expression property: (property_identifier) @_f)
  (#any-of? @_f "find" "children" "parent" "parents" "siblings" "next" "prev" "filter" "not" "has" "is")
  arguments: (arguments . [(string) (template_string)] @traversal))
(call_expression
  function: (member_expression property: (property_identifier) @_f)
  (#any-of? @_f "addClass" "removeClass" "toggleClass" "hasClass")
  arguments: (arguments . [(string) (template_string)] @classes))
(call_expression
  function: (member_expression
    object: (member_expression property: (property_identifier) @_list) (#eq? @_list "classList")
    property: (property_identifier) @_f) (#any-of? @_f "add" "remove" "toggle" "contains" "replace")
  arguments: (arguments [(string) (template_string)] @classes))
(call_expression
  function: (member_expression property: (property_identifier) @_f) (#eq? @_f "setAttribute")
  arguments: (arguments . (string (string_fragment) @_a) (#eq? @_a "class") . [(string) (template_string)] @classes))
(call_expression
  function: (member_expression property: (property_identifier) @_f) (#eq? @_f "setAttribute")
  arguments: (arguments . (string (string_fragment) @_a) (#eq? @_a "id") . [(string) (template_string)] @id))
(assignment_expression
  left: (member_expression property: (property_identifier) @_p) (#eq? @_p "className")
  right: [(string) (template_string)] @classes)
(augmented_assignment_expression
  left: (member_expression property: (property_identifier) @_p) (#eq? @_p "className")
  right: [(string) (template_string)] @classes)
(assignment_expression
  left: (member_expression property: (property_identifier) @_p) (#eq? @_p "id")
  right: [(string) (template_string)] @id)
(jsx_attribute (property_identifier) @_n (#any-of? @_n "className" "class") [(string) (jsx_expression)] @jsx.class)
(jsx_attribute (property_identifier) @_n (#eq? @_n "id") [(string) (jsx_expression)] @jsx.id)
([(string) (template_string)] @html (#match? @html "<[A-Za-z]"))
