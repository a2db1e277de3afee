; Imports (code_intel.explore.imports): @import one import spec, @module its path.
(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @module)) @import
(import_spec path: (raw_string_literal (raw_string_literal_content) @module)) @import
