; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged). A function clause's body is its `= expression` (or its guards).
[(function) (bind)] @callable
[(data_type) (newtype) (class) (instance)] @type
(_ match: (_) @body)
[(class_declarations) (instance_declarations)] @body
(signature) @decorator
