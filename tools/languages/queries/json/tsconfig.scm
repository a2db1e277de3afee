; tsconfig.json's module resolution (code_intel.explore.resolve): @base_url compilerOptions.baseUrl, @alias a key
; of compilerOptions.paths and @target each path it maps to. Comments and trailing commas are read past.
(pair key: (string (string_content) @_o) (#eq? @_o "compilerOptions")
  value: (object (pair key: (string (string_content) @_b) (#eq? @_b "baseUrl")
    value: (string (string_content) @base_url))))
(pair key: (string (string_content) @_o) (#eq? @_o "compilerOptions")
  value: (object (pair key: (string (string_content) @_p) (#eq? @_p "paths")
    value: (object (pair key: (string (string_content) @alias) value: (array (string (string_content) @target)))))))
