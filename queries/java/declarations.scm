; Declarations that build the scope tree of a file, captured in document order:
; types, members, initializers, lambdas and the variables that shadow fields.
; Every pattern's outer capture is named @decl.<what>; extract.rs reads the rest of
; the node (modifiers, parameters, types) through the node's fields.

(package_declaration [(identifier) (scoped_identifier)] @decl.package)
(import_declaration) @decl.import

(class_declaration) @decl.class
(interface_declaration) @decl.interface
(enum_declaration) @decl.enum
(record_declaration) @decl.record
(annotation_type_declaration) @decl.annotation

; `new T(...) { ... }` and enum constants with a body are anonymous classes.
(object_creation_expression (class_body)) @decl.anonymous
(enum_constant body: (class_body)) @decl.anonymous

(method_declaration) @decl.method
(constructor_declaration) @decl.constructor
(compact_constructor_declaration) @decl.constructor
(static_initializer) @decl.static_initializer
(class_body (block) @decl.instance_initializer)
(enum_body_declarations (block) @decl.instance_initializer)

(field_declaration) @decl.field
(constant_declaration) @decl.field
(enum_constant) @decl.enum_constant

(lambda_expression) @decl.lambda

(local_variable_declaration) @decl.local
(catch_formal_parameter) @decl.catch_parameter
(enhanced_for_statement) @decl.foreach
(resource name: (identifier)) @decl.resource
(instanceof_expression name: (identifier)) @decl.pattern
