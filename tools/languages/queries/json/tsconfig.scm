; tsconfig.json's compilerOptions (code_intel.explore.resolve.read_tsconfig): @base_url baseUrl, @alias a key of
; paths and @target each path it maps to, @out_dir outDir, @root_dir rootDir. Comments and trailing commas are
; read past.
(pair key: (string (string_content) @_o) (#eq? @_o "compilerOptions")
  value: (object (pair key: (string (string_content) @_b) (#eq? @_b "baseUrl")
    value: (string (string_content) @base_url))))
(pair key: (string (string_content) @_o) (#eq? @_o "compilerOptions")
  value: (object (pair key: (string (string_content) @_p) (#eq? @_p "paths")
    value: (object (pair key: (string (string_content) @alias) value: (array (string (string_content) @target)))))))
(pair key: (string (string_content) @_o) (#eq? @_o "compilerOptions")
  value: (object (pair key: (string (string_content) @_d) (#eq? @_d "outDir")
    value: (string (string_content) @out_dir))))
(pair key: (string (string_content) @_o) (#eq? @_o "compilerOptions")
  value: (object (pair key: (string (string_content) @_r) (#eq? @_r "rootDir")
    value: (string (string_content) @root_dir))))
