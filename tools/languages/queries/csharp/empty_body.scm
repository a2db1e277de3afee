; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(method_declaration) (constructor_declaration) (local_function_statement) (lambda_expression) (accessor_declaration)
 (property_declaration value: (arrow_expression_clause))] @callable
[(class_declaration) (struct_declaration) (interface_declaration) (record_declaration) (enum_declaration)
 (namespace_declaration)] @type
(_ body: (_) @body)
(property_declaration value: (arrow_expression_clause) @body)
(attribute_list) @decorator
