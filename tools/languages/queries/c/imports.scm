; Imports (code_intel.explore.imports): @import the include, @module a quoted path (looked for beside the file
; first), @module.library an angle-bracket one (include directories only).
(preproc_include path: (string_literal (string_content) @module)) @import
(preproc_include path: (system_lib_string) @module.library) @import
