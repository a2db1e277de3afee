; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(function_declaration) (secondary_constructor) (lambda_literal)] @callable
[(class_declaration) (object_declaration)] @type
[(function_body) (class_body)] @body
(secondary_constructor (statements) @body)
(lambda_literal (statements) @body)
(statements) @block
(annotation) @decorator
