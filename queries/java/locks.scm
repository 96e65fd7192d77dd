; Lock regions (CAPP section 3.1, step 1; SimRT section 3.3, rule 3): synchronized blocks
; and the explicit java.util.concurrent.locks API. `synchronized` methods come from the
; method's modifiers.

(synchronized_statement
  (parenthesized_expression) @lock.expression
  body: (block)) @lock.synchronized

(method_invocation
  object: (_) @lock.object
  name: (identifier) @lock.operation
  (#any-of? @lock.operation "lock" "lockInterruptibly" "tryLock")) @lock.acquire

(method_invocation
  object: (_) @lock.object
  name: (identifier) @lock.operation
  (#eq? @lock.operation "unlock")) @lock.release

; A StampedLock's stamps: `long s = sl.writeLock(); ... sl.unlockWrite(s)`, read stamps the
; same, and an optimistic read from `tryOptimisticRead()` to its `validate(stamp)`. An
; acquire here counts only when a stamped release of the same lock follows it in its unit
; (`rw.readLock()` of a ReadWriteLock hands out a Lock instead).
(method_invocation
  object: (_) @lock.object
  name: (identifier) @lock.operation
  (#any-of? @lock.operation "writeLock" "readLock" "writeLockInterruptibly" "readLockInterruptibly"
    "tryWriteLock" "tryReadLock" "tryOptimisticRead")) @lock.stamp

(method_invocation
  object: (_) @lock.object
  name: (identifier) @lock.operation
  (#any-of? @lock.operation "unlockWrite" "unlockRead" "validate")) @lock.stamp_release
