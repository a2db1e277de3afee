; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(function_item) (function_signature_item) (closure_expression)] @callable
[(struct_item) (enum_item) (union_item) (type_item) (trait_item) (impl_item) (mod_item)] @type
(_ body: (_) @body)
(attribute_item) @decorator
