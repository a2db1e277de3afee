; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(function_declaration) (init_declaration) (lambda_literal) (protocol_function_declaration)] @callable
[(class_declaration) (protocol_declaration)] @type
(_ body: (_) @body)
(statements) @block
(attribute) @decorator
