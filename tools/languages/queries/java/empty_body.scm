; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(method_declaration) (constructor_declaration) (lambda_expression)] @callable
[(class_declaration) (interface_declaration) (enum_declaration) (record_declaration)] @type
(_ body: (_) @body)
(constructor_body) @block
