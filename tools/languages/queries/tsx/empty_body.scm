; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
[(function_declaration) (function_expression) (arrow_function) (method_definition) (generator_function_declaration)
 (function_signature) (method_signature) (abstract_method_signature)] @callable
[(class_declaration) (abstract_class_declaration) (class) (interface_declaration) (type_alias_declaration)
 (enum_declaration)] @type
(_ body: (_) @body)
(statement_block) @block
(decorator) @decorator
