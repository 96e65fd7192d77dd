package racelens.rt;

/**
 * A model that records the effects of its operations itself (a lock's acquisition and release,
 * a condition's wait set), so its call sites add none of their own. Needed where the generic
 * effect of a call (it writes the receiver) would be wrong: a lock's release is not a step
 * another thread's acquisition can be reordered with, and treating it as a plain write would
 * hide the race between the two acquisitions from the reduction.
 */
public interface OwnEffects {}
