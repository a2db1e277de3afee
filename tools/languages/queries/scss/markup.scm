; inherits: css
