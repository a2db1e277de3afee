; Imports (code_intel.explore.imports): @import the item, @module a `use` tree as written (explore/resolve.py
; expands it), @module.submodule a `mod x;` (a module in a file of its own), an `extern crate`'s name.
(use_declaration argument: (_) @module) @import
(mod_item name: (identifier) @module.submodule !body) @import
(extern_crate_declaration name: (identifier) @module) @import
