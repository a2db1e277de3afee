; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(function_declaration) (method_declaration) (func_literal)] @callable
[(type_declaration) (method_elem)] @type
(_ body: (_) @body)
(statement_list) @block
