; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
(function_definition) @callable
(class_definition) @type
(_ body: (block) @body)
(decorator) @decorator
