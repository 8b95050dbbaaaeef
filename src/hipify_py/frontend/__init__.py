"""Front end: raw tokens for every preprocessor branch, and a libclang AST when rules need one."""
