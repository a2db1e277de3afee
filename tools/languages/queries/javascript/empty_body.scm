; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(function_declaration) (function_expression) (arrow_function) (method_definition) (generator_function_declaration)] @callable
[(class_declaration) (class)] @type
(_ body: (_) @body)
(statement_block) @block
(decorator) @decorator
