//! Sets of threads of one execution: the enabled threads of a decision, a `notify`'s
//! waiters, the initials of a race's reversal (issue 22, item 4: any number of threads).
//!
//! A bit per thread, in as many 64-bit words as the highest thread needs. The first two
//! words (128 threads) live inline, so the common case allocates nothing; a test with
//! hundreds of threads spills to the heap instead of being refused. The words never end in
//! a zero word, so two equal sets are equal word for word.

use std::fmt;

use smallvec::SmallVec;

/// A thread of an execution: 0 is the test's thread, then threads in start order.
pub type ThreadId = u16;

#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Threads {
    words: SmallVec<[u64; 2]>,
}

impl Threads {
    pub fn new() -> Threads {
        Threads::default()
    }

    pub fn single(t: ThreadId) -> Threads {
        let mut out = Threads::new();
        out.insert(t);
        out
    }

    pub fn insert(&mut self, t: ThreadId) {
        let (word, bit) = (usize::from(t) / 64, t % 64);
        if self.words.len() <= word {
            self.words.resize(word + 1, 0);
        }
        self.words[word] |= 1 << bit;
    }

    pub fn remove(&mut self, t: ThreadId) {
        if let Some(w) = self.words.get_mut(usize::from(t) / 64) {
            *w &= !(1 << (t % 64));
            self.trim();
        }
    }

    pub fn contains(&self, t: ThreadId) -> bool {
        self.words.get(usize::from(t) / 64).is_some_and(|w| w & (1 << (t % 64)) != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The lowest thread of the set.
    pub fn first(&self) -> Option<ThreadId> {
        self.iter().next()
    }

    /// The threads in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = ThreadId> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let base = (i * 64) as ThreadId;
            (0..64u16).filter(move |b| w & (1 << b) != 0).map(move |b| base + b)
        })
    }

    pub fn intersection(&self, other: &Threads) -> Threads {
        let mut out = Threads { words: self.words.iter().zip(&other.words).map(|(a, b)| a & b).collect() };
        out.trim();
        out
    }

    /// Parses the agent's hex mask (`PROTOCOL.md`): bit `i` is thread `i`, any length.
    pub fn from_hex(s: &str) -> Result<Threads, String> {
        let digits = s.trim_start_matches("0x");
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("bad thread mask `{s}`"));
        }
        let mut out = Threads::new();
        // From the lowest digit up: each 16 digits fill one word.
        let bytes = digits.as_bytes();
        for (i, chunk) in bytes.rchunks(16).enumerate() {
            let word = u64::from_str_radix(std::str::from_utf8(chunk).expect("hex digits are ASCII"), 16)
                .map_err(|_| format!("bad thread mask `{s}`"))?;
            if word != 0 {
                if out.words.len() <= i {
                    out.words.resize(i + 1, 0);
                }
                out.words[i] = word;
            }
        }
        Ok(out)
    }

    fn trim(&mut self) {
        while self.words.last() == Some(&0) {
            self.words.pop();
        }
    }
}

/// As the numbers the masks are: the search sorts backtrack sets by them, and the order must
/// not change with the representation.
impl Ord for Threads {
    fn cmp(&self, other: &Threads) -> std::cmp::Ordering {
        self.words.len().cmp(&other.words.len()).then_with(|| self.words.iter().rev().cmp(other.words.iter().rev()))
    }
}

impl PartialOrd for Threads {
    fn partial_cmp(&self, other: &Threads) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl FromIterator<ThreadId> for Threads {
    fn from_iter<I: IntoIterator<Item = ThreadId>>(iter: I) -> Threads {
        let mut out = Threads::new();
        for t in iter {
            out.insert(t);
        }
        out
    }
}

/// The words highest first: the top one in `digits`, the others padded with them too.
fn write_words(f: &mut fmt::Formatter<'_>, words: &[u64], digits: fn(u64, usize) -> String, pad: usize) -> fmt::Result {
    match words.split_last() {
        None => f.write_str("0"),
        Some((top, rest)) => {
            f.write_str(&digits(*top, 0))?;
            rest.iter().rev().try_for_each(|&w| f.write_str(&digits(w, pad)))
        }
    }
}

/// Hex, highest word first, as the agent writes it: `0x6`, `0x1ffffffffffffffff`.
impl fmt::LowerHex for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.write_str("0x")?;
        }
        write_words(f, &self.words, |w, pad| format!("{w:0pad$x}"), 16)
    }
}

/// Binary, highest thread first (the trace's debug lines): `110`.
impl fmt::Binary for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_words(f, &self.words, |w, pad| format!("{w:0pad$b}"), 64)
    }
}

impl fmt::Debug for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mask_of_more_than_64_threads_round_trips() {
        let mask = "1ffffffffffffffff";
        let set = Threads::from_hex(mask).unwrap();
        assert_eq!(set.len(), 65);
        assert!(set.contains(64) && set.contains(0) && !set.contains(65));
        assert_eq!(format!("{set:x}"), mask);
        let hundred: Threads = (0..100).collect();
        assert_eq!(Threads::from_hex(&format!("{hundred:x}")).unwrap(), hundred);
        assert_eq!(hundred.iter().count(), 100);
    }

    #[test]
    fn removing_the_highest_thread_keeps_equal_sets_equal() {
        let mut set: Threads = [3, 200].into_iter().collect();
        set.remove(200);
        assert_eq!(set, Threads::single(3));
        assert_eq!(Threads::from_hex("0008").unwrap(), Threads::single(3));
        assert_eq!(set.intersection(&Threads::single(200)), Threads::new());
        assert!(Threads::from_hex("").is_err() && Threads::from_hex("xyz").is_err());
        assert_eq!(format!("{:b}", Threads::from_iter([1, 2])), "110");
        assert!(
            Threads::single(70) > Threads::from_iter([0, 1, 2, 63]) && Threads::single(2) > Threads::from_iter([0, 1])
        );
    }
}
