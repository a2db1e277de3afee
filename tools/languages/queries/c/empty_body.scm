; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
(function_definition) @callable
[(struct_specifier) (union_specifier) (enum_specifier) (type_definition)] @type
(declaration declarator: (function_declarator)) @type
(function_definition body: (_) @body)
