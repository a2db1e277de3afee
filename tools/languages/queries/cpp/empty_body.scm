; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(function_definition) (lambda_expression)] @callable
[(struct_specifier) (union_specifier) (enum_specifier) (type_definition) (alias_declaration) (class_specifier)
 (namespace_definition)] @type
(declaration declarator: (function_declarator)) @type
(field_declaration declarator: (function_declarator)) @type
(_ body: (_) @body)
