; Reads and writes of (possible) fields. Whether a node is written is decided by its
; parent (left of `=`, operand of `++`); whether a bare identifier names a field at all
; is decided by the locals in scope and, later, by resolution against the project.

; object.field (including Outer.this.field and super.field)
(field_access field: (identifier)) @access.qualified

; a bare name: a field of this or an outer class, a static import, or a local variable
(identifier) @access.bare

; array[index]: an element of the array the expression holds
(array_access) @access.element
