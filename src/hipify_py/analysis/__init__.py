"""What rewrite passes and hazard rules both ask of a source file, computed from its tokens
(and, for the few questions tokens cannot answer, the libclang cursor): brackets and statements,
functions and their scopes, calls, integer values, thread-index taint, the warp model.

It sits below ``rewrite`` and ``hazards`` and imports neither, so a pass can use what a rule
uses without the two packages importing each other; what one file computes is cached on its
``Unit`` and shared by every pass and rule.
"""
