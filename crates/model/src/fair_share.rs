//! Sharing a pool of outbound work fairly between organisations: [`OrgSlots`] counts what each
//! organisation has in flight against a per-organisation cap, and [`FairQueue`] hands out waiting
//! work round-robin across organisations, skipping those at their cap. Used by the webhook
//! delivery loop and the monitor runner, so one tenant's many (or slow) jobs cannot take every
//! slot. Pure bookkeeping: no I/O, no clock.

use std::collections::{HashMap, VecDeque};

/// In-flight work per organisation, against a cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgSlots {
    cap: usize,
    in_flight: HashMap<String, usize>,
}

impl OrgSlots {
    /// Slots with at most `cap` (at least 1) in flight per organisation.
    pub fn new(cap: usize) -> Self {
        OrgSlots { cap: cap.max(1), in_flight: HashMap::new() }
    }

    /// Takes a slot for `org`; `false` (nothing taken) when it has `cap` in flight already.
    pub fn admit(&mut self, org: &str) -> bool {
        let n = self.in_flight.entry(org.to_string()).or_insert(0);
        if *n >= self.cap {
            return false;
        }
        *n += 1;
        true
    }

    /// Whether `org` could take a slot now.
    pub fn has_room(&self, org: &str) -> bool {
        self.in_flight.get(org).is_none_or(|n| *n < self.cap)
    }

    /// Gives back a slot of `org`.
    pub fn release(&mut self, org: &str) {
        if let Some(n) = self.in_flight.get_mut(org) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.in_flight.remove(org);
            }
        }
    }

    /// Everything in flight.
    pub fn total(&self) -> usize {
        self.in_flight.values().sum()
    }

    /// The organisations at their cap, sorted.
    pub fn full(&self) -> Vec<String> {
        let mut out: Vec<String> = self.in_flight.iter().filter(|(_, n)| **n >= self.cap).map(|(o, _)| o.clone()).collect();
        out.sort();
        out
    }
}

/// Waiting work, handed out round-robin across organisations within their slots.
#[derive(Debug, Clone)]
pub struct FairQueue<T> {
    queues: VecDeque<(String, VecDeque<T>)>,
    slots: OrgSlots,
}

impl<T> FairQueue<T> {
    /// An empty queue with at most `per_org` in flight per organisation.
    pub fn new(per_org: usize) -> Self {
        FairQueue { queues: VecDeque::new(), slots: OrgSlots::new(per_org) }
    }

    /// Adds work of `org` behind that organisation's other waiting work.
    pub fn push(&mut self, org: &str, item: T) {
        match self.queues.iter_mut().find(|(o, _)| o == org) {
            Some((_, q)) => q.push_back(item),
            None => self.queues.push_back((org.to_string(), VecDeque::from([item]))),
        }
    }

    /// The next work whose organisation has a free slot (taking the slot), the organisations
    /// taking turns; `None` when nothing waiting may start now.
    pub fn next_ready(&mut self) -> Option<(String, T)> {
        let i = self.queues.iter().position(|(org, q)| !q.is_empty() && self.slots.has_room(org))?;
        let (org, mut queue) = self.queues.remove(i)?;
        let item = queue.pop_front()?;
        self.slots.admit(&org);
        if !queue.is_empty() {
            self.queues.push_back((org.clone(), queue));
        }
        Some((org, item))
    }

    /// Gives back the slot of work of `org` that ended.
    pub fn done(&mut self, org: &str) {
        self.slots.release(org);
    }

    /// Work waiting (not started).
    pub fn waiting(&self) -> usize {
        self.queues.iter().map(|(_, q)| q.len()).sum()
    }

    /// Work started and not yet done.
    pub fn in_flight(&self) -> usize {
        self.slots.total()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_cap_each_organisation_alone() {
        let mut s = OrgSlots::new(2);
        assert!(s.admit("a") && s.admit("a"));
        assert!(!s.admit("a"), "a is at its cap");
        assert!(s.admit("b"), "b is not held back by a");
        assert_eq!(s.full(), ["a"]);
        assert_eq!(s.total(), 3);
        s.release("a");
        assert!(s.full().is_empty());
        assert!(s.admit("a"));
        s.release("nobody");
        assert_eq!(s.total(), 3);
    }

    #[test]
    fn one_organisations_flood_does_not_take_every_turn() {
        let mut q = FairQueue::new(2);
        for i in 0..100 {
            q.push("flood", i);
        }
        q.push("quiet", 1000);
        q.push("other", 2000);
        let mut started = Vec::new();
        while let Some((org, item)) = q.next_ready() {
            started.push((org, item));
        }
        // Two of the flood's (its cap), then the others' take their turns at once.
        let orgs: Vec<&str> = started.iter().map(|(o, _)| o.as_str()).collect();
        assert_eq!(orgs, ["flood", "quiet", "other", "flood"]);
        assert_eq!(q.in_flight(), 4);
        assert_eq!(q.waiting(), 98, "the flood waits for its own slots");
        q.done("flood");
        assert_eq!(q.next_ready(), Some(("flood".to_string(), 2)), "in the order queued");
        assert_eq!(q.next_ready(), None);
    }

    #[test]
    fn organisations_take_turns_in_order() {
        let mut q = FairQueue::new(10);
        for (org, item) in [("a", 1), ("a", 2), ("a", 3), ("b", 4), ("c", 5), ("b", 6)] {
            q.push(org, item);
        }
        let items: Vec<i32> = std::iter::from_fn(|| q.next_ready().map(|(_, i)| i)).collect();
        assert_eq!(items, [1, 4, 5, 2, 6, 3]);
    }
}
