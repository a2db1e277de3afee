; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(method) (singleton_method)] @callable
[(class) (module) (singleton_class)] @type
(_ body: (_) @body)
