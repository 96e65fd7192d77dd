; Calls: method invocations, instance creations, constructor chaining and method
; references. Their callees feed the read/write sets (CAPP section 3.1, step 4) and the
; thread-start detection.

(method_invocation name: (identifier)) @call.method
(object_creation_expression) @call.new
(explicit_constructor_invocation) @call.chain
(method_reference) @call.reference
; try-with-resources calls each resource's close() when the try block ends.
(resource) @call.close
