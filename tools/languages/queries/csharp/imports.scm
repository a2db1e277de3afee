; Imports (code_intel.explore.imports): @import the directive, @module the namespace or type it brings in.
(using_directive [(identifier) (qualified_name)] @module .) @import
