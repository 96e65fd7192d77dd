//! What each diagnostic code means, for people: `racelens check --help`, the language
//! server's `racelens:/codes/RL001` documents, the rules of the SARIF logs, and the docs
//! all read from here.

pub struct Code {
    pub code: &'static str,
    /// A short identifier in PascalCase (a SARIF rule's `name`).
    pub name: &'static str,
    pub title: &'static str,
    pub explanation: &'static str,
}

pub const CODES: &[Code] = &[
    Code {
        code: "RL001",
        name: "ImpactedDataRace",
        title: "an impacted access races with another thread's access",
        explanation: "Two threads can reach the two accesses at once: one of them writes, no lock is held in common, \
and the field is neither volatile nor atomic nor immutable. The message names the lock that guards the other end (the \
one this access lacks) and what the change did: removed `synchronized`, moved the access out of a lock, removed \
`volatile`, or added the access. A call on a non-thread-safe collection held in a field is an access of its \
contents, and so is a work method of a JDK object that changes its own state (`format()` or `parse()` of a \
`SimpleDateFormat`, a `Calendar`'s setters, a `MessageDigest`'s `update()`, a `Matcher`; not their getters). Two \
accesses made by JUnit's own thread, in test methods, lifecycle methods (`@BeforeEach`, `setUp()`), their private \
helpers and lambdas run inline (`assertThrows`), run one after the other and are never reported together; a thread \
the test starts is another thread, but what `@BeforeEach` or `@AfterEach` does comes before or after it. Not \
reported either: a pair between the own methods of a mutable class that has no discipline of its own (no lock, \
`volatile`, atomic or concurrent field, or thread) in the base and now, such as a configuration bean's new \
`setX`/`getX` (the class is not thread-safe by design; one that loses a lock or becomes mutable is still \
reported), writes in a `readObject` (the object is still being built), and what a method does before it starts \
a thread or submits a task, paired with that task's accesses (`start()` and an executor's submission happen \
before the task runs; not in a loop that also starts it).\n\nFix: take the same lock \
around this access, or make the field volatile or atomic when a single read or write is all that must be atomic; for \
a formatter, one per thread (`ThreadLocal`) or `java.time.format.DateTimeFormatter`, which is immutable.",
    },
    Code {
        code: "RL002",
        name: "AccessMovedOutOfLock",
        title: "an access moved out of the lock that guards its field",
        explanation: "In the base revision this access ran under a lock that other accesses to the field also hold; the \
change moved it out. Even on a volatile field this is usually a bug: a check made outside the lock can be stale by the \
time the action under the lock runs (check-then-act).\n\nFix: move the access back inside the lock, or re-check under it.",
    },
    Code {
        code: "RL003",
        name: "SplitCriticalSection",
        title: "a critical section split in two",
        explanation: "Two accesses that ran in one critical section (a `synchronized` method or block, or one \
`lock()`...`unlock()` region) now run under two separate acquisitions of the same lock. The second acquisition may \
be a call: a check made through a locked getter (`if (size() < max)` with `synchronized int size()`) and the act \
under the lock afterwards, or a write moved into a helper that takes the lock again. Another thread can run between \
them and see, or change, an intermediate state. Reported for the same field read and then written, for two writes \
(an invariant torn between them), and for a read of one field then a write of another, unless the later section \
reads the field again before writing (a re-check, which is how a lock is narrowed safely). Also reported when \
the act no longer takes the lock at all while the check still does: `synchronized (entry)` taken away from around \
`entry.getState() == IDLE` (a synchronized getter) and `idle.remove(entry)`, which another thread can interleave \
with `entry.allocate()` (commons-pool's POOL-326); only for acts made by a call (a thread-safe collection's \
contents, a callee's writes), since a plain field written without its lock is RL001's. One warning per method \
and lock; the other split accesses are related locations.\n\nFix: keep the accesses in one critical section, or \
re-check the condition under the lock before acting.",
    },
    Code {
        code: "RL004",
        name: "CheckThenActOnThreadSafeObject",
        title: "check-then-act on a thread-safe collection or atomic",
        explanation: "Each call on a concurrent collection or an atomic is atomic; two calls are not. Between \
`isEmpty()`, `size()` or `peek()` and `poll()`, `remove()` or `take()`, or `containsKey()`/`get()` and `put()`/`remove()`, \
or an atomic's `get()` and `set()` (or an increment guarded by a `get()` in a condition), another thread can change the \
object, so the action works on a stale check. Not reported when both calls hold one lock, or when the code checks the \
act's result (`T x = q.poll(); if (x != null)`, `if (set.remove(k))`, a result returned to the caller): then it notices \
the other thread.\n\nFix: use the single atomic operation (`poll()` and test for null, `remove()` and test the result, \
`putIfAbsent`, `compute`, `merge`, `compareAndSet`), or hold a lock around both.",
    },
    Code {
        code: "RL005",
        name: "GuardedByWithoutLock",
        title: "a @GuardedBy field accessed without its lock",
        explanation: "The field's `@GuardedBy` annotation declares which lock protects it; this access does not hold \
it.\n\nFix: hold the declared lock here, or correct the annotation.",
    },
    Code {
        code: "RL006",
        name: "MonitorNotHeld",
        title: "wait() or notify() without the monitor",
        explanation: "`wait`, `notify` and `notifyAll` need the monitor of the object they are called on; called \
without it they throw `IllegalMonitorStateException`. The change left this call outside any region holding that \
monitor (and no caller holds it for this method).\n\nFix: call it inside `synchronized` on the same object.",
    },
    Code {
        code: "RL007",
        name: "LockOrderInversion",
        title: "a lock-order inversion (deadlock)",
        explanation: "The change made code that holds one lock take another, directly or in a method it calls, \
while other code takes the two the other way round: each of two threads can hold one lock and wait for the other \
forever. The same holds for one class's lock taken from two objects that the callers choose (`from.lock` then \
`to.lock`): two calls with the arguments swapped deadlock. Locks are named by class and field, so the two orders \
may be in different files; a lock held around both orders, `tryLock()`, and read locks on both sides do not \
deadlock and are not reported. Calls to callbacks are followed to what the project gave them: a method reference or lambda set in a field (by its initializer, constructor or a setter), or added to a collection of listeners (`listeners.add(l)`, called in `for (Listener l : listeners)` or `listeners.forEach(...)`), a lambda's own `synchronized` blocks included. The related locations are both acquisition paths: where the first lock is taken, \
the call made holding it, and where the second is taken. Also reported: a wait the change made while holding a \
lock (a call, holding it, to a method that waits on its own monitor or condition: `gate.awaitDrained()`) where the \
thread that would end the wait takes that lock first (the waking method, or a caller of it, before the wake-up): \
the waker blocks on the lock and the waiter on the wake-up. The same for a wait on a future (`join()`, `get()`), \
a `CountDownLatch` or a `Semaphore` made holding a lock, where the code that completes, counts down or releases \
an object of the same field or collection (`loading.putIfAbsent(key, mine)` … `mine.complete(v)`) takes the lock \
first; that code may be the waiting method itself, run by another thread (a single-flight loader). And a \
`join()` on a thread made holding a lock that the thread's code (its method reference, lambda or `run()`) takes: \
the thread cannot end while the joiner holds the lock.\n\nFix: take the locks in one global order (for two \
objects of one class, order them by a stable key such as an id), do not call out while holding a lock, and do not \
wait for another thread while holding a lock it needs.",
    },
    Code {
        code: "RL008",
        name: "LostWakeUp",
        title: "a lost wake-up",
        explanation: "The change made a wake-up reach fewer waiters than need it. `notify()` and `signal()` wake one \
waiter: that is right only when every waiter waits for the same thing and the one woken consumes it or wakes the \
next. Reported where the change introduced a `notify()` or `signal()` (or turned `notifyAll()`/`signalAll()` into \
it) on a monitor or `Condition` whose waiters wait for different conditions (two wait loops with different \
conditions, such as producers and consumers of one buffer: the one woken may be the wrong kind and the signal is \
lost; or one loop whose condition reads the waiter's own arguments, `while (available(sku) < quantity)`: each thread \
waits for its own thing), after a change that lets several waiters through at once (`drainTo()`, `clear()`, \
`count = 0`: one goes on, the others sleep), or where every waiter waits for one state change that lets all of them through (a gate or latch: the others \
wait forever); where the change added a second kind of waiter to a monitor something wakes one at a time; and where \
the change left a `wait()` or `await()` under `if` (or outside its loop) where it was in a `while` loop, or added \
one under `if`: a spurious wake-up, or a waiter another thread overtook, proceeds though its condition may hold \
again. Also where the change made a wake-up conditional (`if (entries.size() == 1) notifyAll();`) while a waiter \
waits on a condition that reads what the test does not: the clock (`while (head.dueAt() > now)`, a waiter for a \
time derived from the state) or another field the waking method changes; a test of a count the waiters keep \
(`waiters > 0`) is not reported. The kind of a waiter is its loop condition as written; waiters are found project-wide by the monitor. The \
related locations are the waits that share the monitor or condition (for a wait outside its loop, the wake-ups). \
After SpotBugs NO_NOTIFY_NOT_NOTIFYALL and WA_NOT_IN_LOOP, but only for what the change did.\n\nFix: use \
`notifyAll()` or `signalAll()`, or one `Condition` per predicate (`notEmpty`, `notFull`) each signalled when its \
predicate may have become true; always wait in `while (condition) wait();`.",
    },
    Code {
        code: "RL009",
        name: "ReleaseBeforeWrite",
        title: "a release moved before a write (publication order)",
        explanation: "The change made a release run before a write that another thread reads after the matching \
acquire. Another thread sees a write only through a happens-before edge (JLS 17.4.5): an unlock before the next lock of \
that lock, a volatile write before a read of the field, `Thread.start()` before the started thread's actions, and, in \
`java.util.concurrent`, `countDown()` before a return from `await()`, `release()` before `acquire()`, `submit()` or \
`execute()` before the task runs, `complete()` or `set()` before `get()`, `join()` and the dependent stages. A write \
after the release in program order is on no such edge: the reader released by it can read the old value. Reported \
where the change moved (or added) such a release before a write of a field that code elsewhere reads after the \
acquire (after `await()` on the same latch, or after calling a method that only waits for it, such as \
`awaitReady()`; after reading the same volatile flag; in the started thread's or task's code; holding the lock the \
write was moved out of, or woken by the `notify()` the write now follows, or calling a method that waits for \
that `notify()` and reading the field after it returns, volatile or not: the woken thread reads on at once); where the value handed to `complete()` is \
changed after it (`future.complete(result); result.setTotal(...)`); and where a volatile reference, or one assigned \
under a lock, is assigned a new object that is then filled through the field (`map = new HashMap<>(); \
map.put(...)`, where the base filled a local and assigned it after) while code reads the field without the lock: it \
can see the object empty or half-filled. Not reported: writes of locals, final or volatile fields, atomics and \
concurrent collections; fields nobody reads after the acquire, or reads only under a lock the write holds too; a \
write a later release of the same object still precedes; an order the base had already. The related locations are \
the release, the writes and the readers.\n\nFix: write first, then release (move the `countDown()`, the flag, \
`complete()`, `start()` or `submit()` after the writes, keep the write inside the lock); build the object in a local \
and assign the field once it is complete.",
    },
    Code {
        code: "RL010",
        name: "CachedValueBuiltInSteps",
        title: "a cached value built in steps in its field",
        explanation: "An immutable object is shared between threads without locks. Its lazily cached fields (a hash \
code, a formatted string) work with the racy single-check idiom, as `String.hashCode()` does: two threads may both \
compute the value, which is harmless as long as each writes the field once, with the finished value computed in a \
local. The change made this method build the value in the field itself (`hash = 17; hash = 37 * hash + x;`), so the \
field holds each intermediate value for a while, and another thread that finds it set returns a partial value \
(commons-lang's LANG-481). Reported for classes whose instance fields are all final except such caches (non-final, \
non-volatile fields written only after their own check or in a constructor), on the lines the change touched, when \
the base did not already do so; not under a lock. The related locations are the other writes and the field.\n\nFix: \
`int h = hash; if (h == 0) { h = ...; hash = h; } return h;`: compute in a local, write the field once, and return \
the local (a second read of the field may see the default value again).",
    },
    Code {
        code: "RL100",
        name: "ChangedLineImpactsSharedField",
        title: "a changed line that impacts a shared field",
        explanation: "A hint, not a warning: this line of the change reads or writes a field that other methods \
access too, possibly from other threads. Exploration of the tests that reach this line aims at these accesses.",
    },
    Code {
        code: "RL200",
        name: "FailingSchedule",
        title: "a schedule of a test fails here",
        explanation: "Not a guess: racelens ran the test on a real JVM under a schedule it chose, and the test failed here (an exception, a failed assertion, a deadlock or `System.exit`). The related locations are the points where the schedule preempted a thread; together they are the interleaving. The failing schedule replays exactly (`Replay` on the test's lens, or `racelens replay`), so the fix can be checked: edit, replay, see it pass.

The diagnostic goes away when the code the test reaches changes (the result is then stale) or when an exploration no longer fails.",
    },
    Code {
        code: "RL201",
        name: "TestNotExplored",
        title: "a test whose schedules were not explored",
        explanation: "Not a pass: racelens did not explore this test's schedules to the end, so nothing is claimed \
about them. A thread racelens does not control ran project code (its schedules cannot be chosen), the exploration \
stopped (an execution diverged from the schedule it replayed, which a nondeterministic test does; a run timed out; \
the agent failed), or the test could not be run at all (not found, or not compiled). The message says which.\n\n\
Fix: what the message names; then explore the test again.",
    },
    Code {
        code: "RL202",
        name: "NoCompleteClaim",
        title: "an exploration that ended without claiming a complete bound",
        explanation: "No schedule failed, but the exploration ended before it could claim every schedule, or every \
schedule up to a preemption bound: the budget of schedules ran out (`--max-schedules`), the run was cancelled, runs \
were cut at the step bound (a livelock or a very long test: what they did not reach was not explored), or the \
search that ran makes no such claim. The message says what was covered; nothing is claimed about the other \
schedules.\n\nFix: raise `--max-schedules` (or `--max-steps` when runs reached the step bound) and explore again.",
    },
    Code {
        code: "RL210",
        name: "DynamicallyImpactedAccess",
        title: "an access the change impacts in a test's run",
        explanation: "A hint, not a warning: when racelens explored a test, it also ran it once on the base revision \
and once on the working tree (ReConTest's dynamic change impact, `racelens impact`), and here the working tree's run \
made a shared-memory access that is new (a changed statement, or a path the base never took) or whose concurrency \
context changed: other locks held, other start/join/wait/notify events before it in its thread, or a lock released \
since the thread's previous access. Interleavings at such accesses are the ones the change can have made new; the \
exploration prioritizes them. The hover says why, for each access of the line.\n\nThe hint goes away when the code \
the test reaches changes or the base revision moves (explore the test again).",
    },
];

pub fn find(code: &str) -> Option<&'static Code> {
    CODES.iter().find(|c| c.code.eq_ignore_ascii_case(code))
}

/// A markdown page for one code.
pub fn markdown(code: &Code) -> String {
    format!("# {} — {}\n\n{}\n", code.code, code.title, code.explanation)
}
