; Markup names (code_intel.explore.markup): the classes (@class) and ids (@id) a stylesheet's selectors define.
; Comments, strings, url() and declarations are not selectors, so never names.
(class_selector (class_name) @class)
(id_selector (id_name) @id)
