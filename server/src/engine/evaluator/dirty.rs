//! The pairs changed since the last checkpoint: one bit per (witness,
//! entry point) of the mesh. Every report marks a whole row of them, which
//! in a hash set cost more than the rest of applying the report; the bits
//! of a 3000-server fleet take 1.1 MB.

use meshwatch::mesh::Mesh;

pub(super) struct DirtyPairs {
    /// Entry points per witness row.
    width: usize,
    bits: Vec<u64>,
}

impl DirtyPairs {
    /// None marked, for the pairs of `mesh`.
    pub(super) fn of(mesh: &Mesh) -> Self {
        let width = mesh.entry_point_count();
        Self {
            width,
            bits: vec![0; (mesh.server_count() * width).div_ceil(64)],
        }
    }

    pub(super) fn insert(&mut self, w: usize, e: usize) {
        let i = w * self.width + e;
        self.bits[i / 64] |= 1u64 << (i % 64);
    }

    pub(super) fn extend(&mut self, pairs: impl IntoIterator<Item = (usize, usize)>) {
        for (w, e) in pairs {
            self.insert(w, e);
        }
    }

    /// The marked pairs, witness by witness.
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let width = self.width;
        self.bits
            .iter()
            .enumerate()
            .filter(|(_, word)| **word != 0)
            .flat_map(move |(k, &word)| {
                let mut rest = word;
                std::iter::from_fn(move || {
                    (rest != 0).then(|| {
                        let bit = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        let i = k * 64 + bit;
                        (i / width, i % width)
                    })
                })
            })
    }

    /// Takes the marked pairs, leaving none.
    pub(super) fn take(&mut self) -> Vec<(usize, usize)> {
        let pairs = self.iter().collect();
        self.bits.fill(0);
        pairs
    }

    /// The same pairs in `next` (a rebuilt `old`), where they still exist.
    pub(super) fn carried_to(&self, old: &Mesh, next: &Mesh) -> Self {
        let mut carried = Self::of(next);
        carried.extend(self.iter().filter_map(|(w, e)| {
            let w = next.server_index(&old.server(w).id)?;
            let e = next.entry_point_index(old.entry_point_id(e))?;
            Some((w, e))
        }));
        carried
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshwatch::mesh::MeshServer;
    use meshwatch::{EntryPointId, ServerId};

    fn mesh(servers: &[(&str, &[&str])]) -> Mesh {
        let servers = servers
            .iter()
            .map(|(id, eps)| MeshServer {
                id: ServerId::parse(id).expect("slug"),
                name: (*id).to_owned(),
                country: "DE".to_owned(),
                verifier: false,
                network: None,
                controls: Default::default(),
                routes: Vec::new(),
                entry_points: eps
                    .iter()
                    .map(|e| EntryPointId::parse(e).expect("slug").into())
                    .collect(),
            })
            .collect();
        Mesh::new(servers, Vec::new())
    }

    #[test]
    fn marked_pairs_come_back_once_each_and_are_taken() {
        let servers: Vec<(String, Vec<String>)> = (0..40)
            .map(|s| (format!("s{s}"), vec![format!("s{s}-a"), format!("s{s}-b")]))
            .collect();
        let borrowed: Vec<Vec<&str>> = servers
            .iter()
            .map(|(_, eps)| eps.iter().map(String::as_str).collect())
            .collect();
        let spec: Vec<(&str, &[&str])> = servers
            .iter()
            .zip(&borrowed)
            .map(|((id, _), eps)| (id.as_str(), eps.as_slice()))
            .collect();
        let mesh = mesh(&spec);
        let mut dirty = DirtyPairs::of(&mesh);
        let marked = [(0, 0), (0, 79), (1, 5), (39, 79), (20, 33), (1, 5)];
        dirty.extend(marked);
        assert_eq!(dirty.iter().count(), 5);
        let mut expected = marked[..5].to_vec();
        expected.sort();
        assert_eq!(dirty.take(), expected);
        assert_eq!(dirty.iter().count(), 0);
    }

    #[test]
    fn a_rebuilt_mesh_keeps_the_marks_of_what_still_exists() {
        let old = mesh(&[("a", &["a-1"]), ("b", &["b-1", "b-2"]), ("c", &["c-1"])]);
        let next = mesh(&[("c", &["c-1"]), ("a", &["a-1", "a-2"])]);
        let mut dirty = DirtyPairs::of(&old);
        // a→b-1 (b leaves), c→a-1, a→c-1, b→c-1 (b leaves).
        dirty.extend([(0, 1), (2, 0), (0, 3), (1, 3)]);
        let carried = dirty.carried_to(&old, &next);
        let mut pairs: Vec<_> = carried.iter().collect();
        pairs.sort();
        // In `next`: c is 0 (entry point c-1 is 0), a is 1 (a-1 is 1).
        assert_eq!(pairs, [(0, 1), (1, 0)]);
    }
}
