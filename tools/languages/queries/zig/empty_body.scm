; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged).
(Decl (FnProto)) @callable
(TestDecl) @callable
(Decl (Block) @body)
(TestDecl (Block) @body)
(Block) @block
