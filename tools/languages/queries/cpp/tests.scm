; inherits: c
