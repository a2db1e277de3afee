; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged). Dart's body follows its signature as a sibling (empty_body.py reads it).
[(function_signature) (method_signature)] @callable
[(class_definition) (mixin_declaration) (extension_declaration) (enum_declaration)] @type
[(class_body) (extension_body)] @body
(function_body) @body
(block) @block
(annotation) @decorator
