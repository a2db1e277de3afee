; Imports (code_intel.explore.imports): @import the statement, @module the namespace or file it names.
(namespace_use_declaration (namespace_use_clause [(qualified_name) (name)] @module)) @import
(namespace_use_declaration (namespace_name) @module body: (namespace_use_group)) @import
(require_expression [(string (string_content) @module) (encapsed_string (string_content) @module)]) @import
(require_once_expression [(string (string_content) @module) (encapsed_string (string_content) @module)]) @import
(include_expression [(string (string_content) @module) (encapsed_string (string_content) @module)]) @import
(include_once_expression [(string (string_content) @module) (encapsed_string (string_content) @module)]) @import
