; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(function_definition) (method_declaration) (anonymous_function) (arrow_function)] @callable
[(class_declaration) (interface_declaration) (trait_declaration) (enum_declaration)] @type
(_ body: (_) @body)
(attribute_list) @decorator
(php_tag) @ignored
