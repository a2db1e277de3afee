; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(function_definition) (function_declaration)] @callable
[(class_definition) (object_definition) (trait_definition)] @type
(_ body: (_) @body)
(annotation) @decorator
