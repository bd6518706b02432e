//! A table of rows keyed by uuid with secondary indexes (row name, pool id), so that the
//! lookups every planner makes (`_find_ovn_lbs`, `_find_ovn_lb_by_pool_id`) cost
//! O(log rows) instead of a scan of the table: `ovn-db-sync` over 10,000 load balancers
//! makes one such lookup per pool and per load balancer.
//!
//! The index is built on first lookup and kept exact under every change made through
//! [`IndexedRows`]: [`IndexedRows::insert`]/[`IndexedRows::remove`] update it,
//! [`IndexedRows::get_mut`] marks the row dirty (its new keys are unknown until it is read
//! again) and every lookup also looks at the dirty rows. Lookups return *candidates* in uuid
//! order: the caller checks each (the same predicate a scan would apply), so the answer is the
//! scan's answer.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

/// A secondary key of a row.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IndexKey {
    /// The row's `name` column.
    Name(String),
    /// A pool id the row stores (`pool_<id>` or `pool_<id>:D` in `external_ids`).
    Pool(String),
    /// A `Load_Balancer_Health_Check` row the row references.
    HealthCheck(String),
}

/// What a row is indexed by.
pub trait Keyed {
    /// Every secondary key of the row.
    fn index_keys(&self) -> Vec<IndexKey>;
}

type Index = HashMap<IndexKey, BTreeSet<String>>;

/// Rows by uuid (read as a `BTreeMap` through `Deref`) with an index of [`IndexKey`]s.
pub struct IndexedRows<R> {
    rows: BTreeMap<String, R>,
    index: OnceLock<Index>,
    /// Rows handed out by `get_mut` since the index was built: looked at by every lookup.
    dirty: BTreeSet<String>,
}

impl<R> Default for IndexedRows<R> {
    fn default() -> Self {
        Self {
            rows: BTreeMap::new(),
            index: OnceLock::new(),
            dirty: BTreeSet::new(),
        }
    }
}

impl<R: Clone> Clone for IndexedRows<R> {
    fn clone(&self) -> Self {
        Self {
            rows: self.rows.clone(),
            index: self.index.clone(),
            dirty: self.dirty.clone(),
        }
    }
}

impl<R: std::fmt::Debug> std::fmt::Debug for IndexedRows<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.rows.fmt(f)
    }
}

impl<R: PartialEq> PartialEq for IndexedRows<R> {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows
    }
}

impl<R> std::ops::Deref for IndexedRows<R> {
    type Target = BTreeMap<String, R>;
    fn deref(&self) -> &Self::Target {
        &self.rows
    }
}

impl<'a, R> IntoIterator for &'a IndexedRows<R> {
    type Item = (&'a String, &'a R);
    type IntoIter = std::collections::btree_map::Iter<'a, String, R>;
    fn into_iter(self) -> Self::IntoIter {
        self.rows.iter()
    }
}

impl<R: Keyed> FromIterator<(String, R)> for IndexedRows<R> {
    fn from_iter<I: IntoIterator<Item = (String, R)>>(iter: I) -> Self {
        Self {
            rows: iter.into_iter().collect(),
            ..Default::default()
        }
    }
}

fn unindex<R: Keyed>(index: &mut Index, uuid: &str, row: &R) {
    for k in row.index_keys() {
        if let Some(set) = index.get_mut(&k) {
            set.remove(uuid);
            if set.is_empty() {
                index.remove(&k);
            }
        }
    }
}

fn add<R: Keyed>(index: &mut Index, uuid: &str, row: &R) {
    for k in row.index_keys() {
        index.entry(k).or_default().insert(uuid.to_string());
    }
}

impl<R: Keyed> IndexedRows<R> {
    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let mut ix = Index::new();
            for (u, r) in &self.rows {
                if !self.dirty.contains(u) {
                    add(&mut ix, u, r);
                }
            }
            ix
        })
    }

    /// Insert or replace the row `uuid`; returns the row it replaced.
    pub fn insert(&mut self, uuid: String, row: R) -> Option<R> {
        let old = self.rows.remove(&uuid);
        if let Some(ix) = self.index.get_mut() {
            if let Some(o) = &old {
                unindex(ix, &uuid, o);
            }
            add(ix, &uuid, &row);
            self.dirty.remove(&uuid);
        }
        self.rows.insert(uuid, row);
        old
    }

    /// Remove the row `uuid`.
    pub fn remove(&mut self, uuid: &str) -> Option<R> {
        let old = self.rows.remove(uuid)?;
        if let Some(ix) = self.index.get_mut() {
            unindex(ix, uuid, &old);
        }
        self.dirty.remove(uuid);
        Some(old)
    }

    /// The row `uuid` to change in place (looked at by every lookup from now on).
    pub fn get_mut(&mut self, uuid: &str) -> Option<&mut R> {
        let row = self.rows.get_mut(uuid)?;
        if let Some(ix) = self.index.get_mut() {
            unindex(ix, uuid, row);
        }
        self.dirty.insert(uuid.to_string());
        Some(row)
    }

    /// Index the dirty rows again (after a batch of [`IndexedRows::get_mut`] changes).
    pub fn reindex(&mut self) {
        let dirty = std::mem::take(&mut self.dirty);
        if let Some(ix) = self.index.get_mut() {
            for u in &dirty {
                if let Some(r) = self.rows.get(u) {
                    add(ix, u, r);
                }
            }
        }
    }

    /// Rows that may have `key`, in uuid order (indexed ones and dirty ones): the caller
    /// checks each.
    pub fn candidates(&self, key: &IndexKey) -> Vec<&R> {
        let hits = self.index().get(key);
        let mut uuids: BTreeSet<&String> = self.dirty.iter().collect();
        uuids.extend(hits.into_iter().flatten());
        uuids.into_iter().filter_map(|u| self.rows.get(u)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct R(Vec<IndexKey>);
    impl Keyed for R {
        fn index_keys(&self) -> Vec<IndexKey> {
            self.0.clone()
        }
    }
    fn n(s: &str) -> IndexKey {
        IndexKey::Name(s.into())
    }
    fn ids(v: Vec<&R>, t: &IndexedRows<R>) -> Vec<String> {
        v.into_iter()
            .map(|r| {
                t.iter()
                    .find(|(_, x)| std::ptr::eq(*x, r))
                    .unwrap()
                    .0
                    .clone()
            })
            .collect()
    }

    /// Every way of changing rows (insert, replace, remove, change in place before and after
    /// the index exists, re-index) leaves candidates that include every row having the key.
    #[test]
    fn candidates_cover_every_change() {
        let mut t: IndexedRows<R> = IndexedRows::default();
        t.insert("b".into(), R(vec![n("x")]));
        t.get_mut("b").unwrap().0 = vec![n("y")]; // before the index exists
        t.insert("a".into(), R(vec![n("x")]));
        assert_eq!(ids(t.candidates(&n("x")), &t), vec!["a", "b"]); // b dirty
        assert!(ids(t.candidates(&n("y")), &t).contains(&"b".to_string()));
        t.reindex();
        assert_eq!(ids(t.candidates(&n("x")), &t), vec!["a"]);
        assert_eq!(ids(t.candidates(&n("y")), &t), vec!["b"]);
        t.insert("a".into(), R(vec![n("y")])); // replace with the index built
        assert!(t.candidates(&n("x")).is_empty());
        assert_eq!(ids(t.candidates(&n("y")), &t), vec!["a", "b"]);
        t.get_mut("a").unwrap().0 = vec![n("z")];
        assert!(ids(t.candidates(&n("z")), &t).contains(&"a".to_string()));
        t.remove("a");
        assert!(t.candidates(&n("z")).is_empty());
        assert_eq!(ids(t.candidates(&n("y")), &t), vec!["b"]);
        let c = t.clone();
        assert_eq!(ids(c.candidates(&n("y")), &c), vec!["b"]);
    }
}
