//! Stable witness sets (docs/concepts/witness-sets.md): beyond
//! `witness_set_threshold` servers, each normal server is watched by `m`
//! witnesses instead of by the whole fleet, so a witness's cost stops
//! growing with the fleet while the rules keep their meaning.
//!
//! - **Classes** (the mesh and `m` alone decide them, so they are cached
//!   with the mesh). Rendezvous scores come from ids (of the two servers,
//!   or of the server and a country or route), so they survive fleet
//!   changes. Countries come in the order of their score with the server,
//!   and the set's `m` slots are dealt to them in turn: a set spans as
//!   many countries as the fleet has, up to `m`. Each country keeps its
//!   best candidates, placed so that neighbours are on different routes.
//! - **The set** (at `now`, from who is reporting). Slot `i` rotates at
//!   the epochs equal to `i` modulo `m` (an epoch is `witness_rotation_s`,
//!   staggered per server), so exactly one slot rotates at a time; a
//!   country's witnesses are a window of its candidates that moves one
//!   place whenever one of its slots rotates. Adding or removing a server
//!   moves a window by at most a place, so streaks survive fleet changes.
//! - **Silence.** Witnesses that are not reporting are passed over while
//!   a country has reporting ones, and a shortfall is made up from other
//!   countries: a set of a fresh server is never left empty. While nobody
//!   reports, the sets are the ones everyone reporting would give.
//!
//! When one of a set's witnesses starts a failure streak towards the
//! server, up to [`INDIRECT_CONFIRMERS`] more reporting servers from
//! outside the set are asked to probe it too (SWIM's indirect probe).

use crate::evidence::Evidence;
use crate::mesh::Mesh;
use crate::settings::Settings;

/// How many servers outside a set confirm a starting streak.
pub const INDIRECT_CONFIRMERS: usize = 3;

/// Every normal server's witness classes (see the module's doc), or
/// nothing for a verifier: verifiers probe every normal server and are
/// watched by no set.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pools {
    /// The set size they were made for.
    m: usize,
    of: Vec<Vec<Class>>,
}

/// One country's share of a set.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Class {
    /// The set's slots this country holds (slot numbers, which rotate in turn).
    slots: Vec<usize>,
    /// Its best candidates in places (see [`members_of`]): the set holds
    /// a window of `slots.len()` of them that moves one place whenever
    /// one of its slots rotates.
    members: Vec<Option<u32>>,
}

impl Pools {
    pub fn of(mesh: &Mesh, m: usize) -> Self {
        let n = mesh.server_count();
        let keys: Vec<u64> = mesh.servers().iter().map(|s| key(s.id.as_str())).collect();
        let country_keys: Vec<u64> = mesh.countries().iter().map(|c| key(c)).collect();
        let route_keys: Vec<u64> = mesh.routes().iter().map(|r| key(r.id.as_str())).collect();
        // Per country, its normal servers grouped by (first) route.
        let mut by_country: Vec<Vec<(usize, Vec<u32>)>> = vec![Vec::new(); mesh.countries().len()];
        for w in (0..n).filter(|&w| !mesh.server(w).verifier) {
            let route = mesh.routes_of(w).first().copied().unwrap_or(usize::MAX);
            let groups = &mut by_country[mesh.country_of(w)];
            match groups.iter_mut().find(|(r, _)| *r == route) {
                Some((_, list)) => list.push(w as u32),
                None => groups.push((route, vec![w as u32])),
            }
        }
        let of = (0..n)
            .map(|s| {
                if mesh.server(s).verifier {
                    return Vec::new();
                }
                classes_of(s, &keys, &country_keys, &route_keys, &by_country, m)
            })
            .collect();
        Self { m, of }
    }

    /// The set size these pools were made for.
    pub fn set_size(&self) -> usize {
        self.m
    }

    fn classes(&self, s: usize) -> &[Class] {
        &self.of[s]
    }
}

fn best_first(a: &(u64, u32), b: &(u64, u32)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then(a.1.cmp(&b.1))
}

/// Server `s`'s classes: the countries in the order of their rendezvous
/// score with `s`, the `m` slots dealt to them in turn (a country holds
/// no more slots than it has candidates).
fn classes_of(
    s: usize,
    keys: &[u64],
    country_keys: &[u64],
    route_keys: &[u64],
    by_country: &[Vec<(usize, Vec<u32>)>],
    m: usize,
) -> Vec<Class> {
    let others = |c: usize| -> usize {
        by_country[c]
            .iter()
            .map(|(_, list)| list.iter().filter(|&&w| w as usize != s).count())
            .sum()
    };
    let sizes: Vec<usize> = (0..by_country.len()).map(others).collect();
    let mut countries: Vec<(u64, usize)> = (0..by_country.len())
        .filter(|&c| sizes[c] > 0)
        .map(|c| (score(keys[s], country_keys[c]), c))
        .collect();
    countries.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut slots: Vec<Vec<usize>> = vec![Vec::new(); countries.len()];
    let mut dealt = 0;
    while dealt < m {
        let before = dealt;
        for (k, &(_, c)) in countries.iter().enumerate() {
            if dealt < m && slots[k].len() < sizes[c] {
                slots[k].push(dealt);
                dealt += 1;
            }
        }
        if dealt == before {
            break;
        }
    }
    countries
        .iter()
        .zip(slots)
        .filter(|(_, slots)| !slots.is_empty())
        .map(|(&(_, c), slots)| Class {
            members: members_of(s, keys, route_keys, &by_country[c], slots.len()),
            slots,
        })
        .collect()
}

/// The candidates a country keeps for `q` slots of server `s`'s set, in
/// places: round `k` holds the `k`-th best (by rendezvous score) of each
/// of its routes, the routes in the order of their own score with `s`,
/// for about `2q + 1` places in whole rounds. Any `q` neighbours,
/// wrapping around, are on different routes where the country has that
/// many; a place of a route short of candidates stays empty, so a server
/// leaving moves the others of its route by a round and no one else.
fn members_of(
    s: usize,
    keys: &[u64],
    route_keys: &[u64],
    routes: &[(usize, Vec<u32>)],
    q: usize,
) -> Vec<Option<u32>> {
    let rounds = (2 * q + 1).div_ceil(routes.len().max(1));
    let mut per_route: Vec<(u64, Vec<(u64, u32)>)> = routes
        .iter()
        .filter_map(|(route, list)| {
            let mut scored: Vec<(u64, u32)> = list
                .iter()
                .filter(|&&w| w as usize != s)
                .map(|&w| (score(keys[s], keys[w as usize]), w))
                .collect();
            if scored.is_empty() {
                return None;
            }
            if scored.len() > rounds {
                scored.select_nth_unstable_by(rounds - 1, best_first);
                scored.truncate(rounds);
            }
            scored.sort_unstable_by(best_first);
            let route_key = route_keys.get(*route).copied().unwrap_or(0);
            Some((score(keys[s], route_key), scored))
        })
        .collect();
    per_route.sort_unstable_by_key(|r| std::cmp::Reverse(r.0));
    (0..rounds)
        .flat_map(|round| {
            per_route
                .iter()
                .map(move |(_, list)| list.get(round).map(|c| c.1))
        })
        .collect()
}

/// Who watches whom at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WitnessSets {
    /// The fleet is at most `witness_set_threshold` servers: everyone
    /// probes everyone, as without sets.
    full: bool,
    verifier: Vec<bool>,
    /// Per normal server, its set, ascending.
    sets: Vec<Vec<u32>>,
    /// Per normal server, the servers confirming a starting streak, ascending.
    confirmers: Vec<Vec<u32>>,
    /// Per normal server, what it probes: `(target, indirect)`, ascending.
    targets: Vec<Vec<(u32, bool)>>,
    /// Per normal server, when its set last rotated (panel clock, ms).
    rotated_at: Vec<i64>,
}

impl WitnessSets {
    /// Everyone witnesses everyone.
    pub fn full(mesh: &Mesh) -> Self {
        Self {
            full: true,
            verifier: mesh.servers().iter().map(|s| s.verifier).collect(),
            sets: Vec::new(),
            confirmers: Vec::new(),
            targets: Vec::new(),
            rotated_at: Vec::new(),
        }
    }

    /// The sets at `now_ms` for this mesh, evidence and settings.
    pub fn derive(mesh: &Mesh, evidence: &Evidence, settings: &Settings, now_ms: i64) -> Self {
        let n = mesh.server_count();
        if !settings.uses_witness_sets(n) {
            return Self::full(mesh);
        }
        let context = Context::new(mesh, evidence, settings, now_ms);
        let mut sets = vec![Vec::new(); n];
        let mut confirmers = vec![Vec::new(); n];
        let mut rotated_at = vec![0; n];
        for s in (0..n).filter(|&s| !mesh.server(s).verifier) {
            let chosen = context.sets_of(mesh, evidence, s);
            sets[s] = chosen.set;
            confirmers[s] = chosen.confirmers;
            rotated_at[s] = chosen.rotated_at;
        }
        let mut targets: Vec<Vec<(u32, bool)>> = vec![Vec::new(); n];
        for s in 0..n {
            for &w in &sets[s] {
                targets[w as usize].push((s as u32, false));
            }
            for &w in &confirmers[s] {
                targets[w as usize].push((s as u32, true));
            }
        }
        Self {
            full: false,
            verifier: mesh.servers().iter().map(|s| s.verifier).collect(),
            sets,
            confirmers,
            targets,
            rotated_at,
        }
    }

    /// The sets after new results about `touched` servers, or at a later
    /// `now_ms`, when no server began or stopped reporting: only the
    /// `touched` servers' confirmations, and the sets whose turn to rotate
    /// came by `now_ms`, can have moved. Returns the witnesses whose
    /// targets moved. Equal to [`WitnessSets::derive`] on the same inputs.
    pub fn refresh(
        &mut self,
        mesh: &Mesh,
        evidence: &Evidence,
        settings: &Settings,
        now_ms: i64,
        touched: &[usize],
    ) -> Vec<usize> {
        if self.full {
            return Vec::new();
        }
        let context = Context::new(mesh, evidence, settings, now_ms);
        let mut servers: Vec<usize> = (0..self.sets.len())
            .filter(|&s| !self.verifier[s] && self.rotated_at[s] + context.period <= now_ms)
            .chain(touched.iter().copied().filter(|&s| !self.verifier[s]))
            .collect();
        servers.sort_unstable();
        servers.dedup();
        let mut moved = Vec::new();
        for s in servers {
            let chosen = context.sets_of(mesh, evidence, s);
            self.rotated_at[s] = chosen.rotated_at;
            let old_set = std::mem::replace(&mut self.sets[s], chosen.set);
            let old_confirmers = std::mem::replace(&mut self.confirmers[s], chosen.confirmers);
            let lists = [
                (false, &old_set, &self.sets[s]),
                (true, &old_confirmers, &self.confirmers[s]),
            ];
            // Every leaving witness first: one may only change its role.
            for (indirect, old, new) in lists {
                for &w in old.iter().filter(|w| new.binary_search(w).is_err()) {
                    let list = &mut self.targets[w as usize];
                    if let Ok(i) = list.binary_search(&(s as u32, indirect)) {
                        list.remove(i);
                    }
                    moved.push(w as usize);
                }
            }
            for (indirect, old, new) in lists {
                for &w in new.iter().filter(|w| old.binary_search(w).is_err()) {
                    let list = &mut self.targets[w as usize];
                    if let Err(i) = list.binary_search_by_key(&(s as u32), |&(t, _)| t) {
                        list.insert(i, (s as u32, indirect));
                    }
                    moved.push(w as usize);
                }
            }
        }
        moved.sort_unstable();
        moved.dedup();
        moved
    }

    /// Whether everyone witnesses everyone.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// Whether witness `w`'s results about `s` vote (R1 and R2 count them).
    pub fn assigned(&self, w: usize, s: usize) -> bool {
        if self.full {
            return w != s;
        }
        if self.verifier[w] {
            return !self.verifier[s];
        }
        self.targets[w]
            .binary_search_by_key(&(s as u32), |&(t, _)| t)
            .is_ok()
    }

    /// Whether `w` is in `s`'s set (its results there can start or end
    /// an indirect confirmation).
    pub fn in_set(&self, w: usize, s: usize) -> bool {
        !self.full && !self.verifier[w] && self.targets[w].binary_search(&(s as u32, false)).is_ok()
    }

    /// What witness `w` probes, `(target, indirect)` ascending; `None`
    /// when it probes every other server (no sets, or a verifier, which
    /// probes every normal server).
    pub fn targets_of(&self, w: usize) -> Option<&[(u32, bool)]> {
        (!self.full && !self.verifier[w]).then(|| self.targets[w].as_slice())
    }

    /// Everything witness `w` probes, `(target, indirect)` ascending: its
    /// targets beyond the threshold; every normal server for a verifier;
    /// every other server without sets. [`WitnessSets::assigned`] answers
    /// for one pair by the same rule.
    pub fn probed_by(&self, w: usize) -> impl Iterator<Item = (usize, bool)> + '_ {
        let listed = self.targets_of(w);
        let everyone = listed.is_none().then(|| {
            (0..self.verifier.len())
                .filter(move |&s| s != w && (self.full || !self.verifier[s]))
                .map(|s| (s, false))
        });
        let listed = listed
            .into_iter()
            .flatten()
            .map(|&(t, indirect)| (t as usize, indirect));
        listed.chain(everyone.into_iter().flatten())
    }

    /// Server `s`'s witness set, ascending; `None` without sets, and for a
    /// verifier.
    pub fn set_of(&self, s: usize) -> Option<&[u32]> {
        (!self.full && !self.verifier[s]).then(|| self.sets[s].as_slice())
    }

    /// The servers outside `s`'s set confirming a starting streak.
    pub fn confirmers_of(&self, s: usize) -> &[u32] {
        if self.full {
            &[]
        } else {
            &self.confirmers[s]
        }
    }

    /// When `s`'s set last rotated (panel clock, ms); `None` without sets.
    pub fn rotated_at_ms(&self, s: usize) -> Option<i64> {
        self.set_of(s).map(|_| self.rotated_at[s])
    }

    /// A digest of what `w` probes: it moves whenever its targets do, so
    /// the agent's config version can follow it.
    pub fn digest_of(&self, w: usize) -> u64 {
        match self.targets_of(w) {
            None => 0,
            Some(targets) => targets.iter().fold(0xcbf2_9ce4_8422_2325, |h, &(t, i)| {
                mix(h ^ (u64::from(t) << 1 | u64::from(i)))
            }),
        }
    }
}

/// Every reporting normal server, to make up a set whose candidates are
/// silent (a wide outage): walked from a place of the server's own so
/// that such sets spread over the reporting servers.
struct Reserve<'a> {
    live: &'a [u32],
    start: usize,
    server: u32,
}

impl Reserve<'_> {
    fn beyond<'b>(&'b self, set: &'b [u32]) -> impl Iterator<Item = u32> + 'b {
        let len = self.live.len();
        (0..len)
            .map(move |k| self.live[(self.start + k) % len])
            .filter(move |&w| w != self.server && !set.contains(&w))
    }
}

/// What every server's sets are chosen from at one moment.
struct Context {
    live: Vec<bool>,
    live_normal: Vec<u32>,
    pools: std::sync::Arc<Pools>,
    period: i64,
    cutoff: i64,
    now_ms: i64,
}

/// One server's set, confirmers (ascending) and last rotation.
struct ServerSets {
    set: Vec<u32>,
    confirmers: Vec<u32>,
    rotated_at: i64,
}

impl Context {
    fn new(mesh: &Mesh, evidence: &Evidence, settings: &Settings, now_ms: i64) -> Self {
        let n = mesh.server_count();
        let cutoff = now_ms.saturating_sub(settings.stale_after_ms());
        let live: Vec<bool> = (0..n)
            .map(|s| evidence.report(s).is_some_and(|r| r.received_ms > cutoff))
            .collect();
        let live_normal = (0..n)
            .filter(|&w| live[w] && !mesh.server(w).verifier)
            .map(|w| w as u32)
            .collect();
        Self {
            live,
            live_normal,
            pools: mesh.witness_pools(settings.witness_set_size as usize),
            period: settings.witness_rotation_ms().max(1),
            cutoff,
            now_ms,
        }
    }

    fn sets_of(&self, mesh: &Mesh, evidence: &Evidence, s: usize) -> ServerSets {
        let own = key(mesh.server(s).id.as_str());
        let phase = (own % self.period as u64) as i64;
        let epoch = (self.now_ms + phase).div_euclid(self.period);
        let reserve = Reserve {
            live: &self.live_normal,
            start: (own % self.live_normal.len().max(1) as u64) as usize,
            server: s as u32,
        };
        let chosen = choose(self.pools.classes(s), epoch, &self.live, &reserve);
        let streak_started = chosen.set.iter().any(|&w| {
            self.live[w as usize]
                && mesh
                    .entry_points_of(s)
                    .map(|e| evidence.pair(w as usize, e))
                    .any(|p| p.streak >= 1 && p.is_fresh(self.cutoff))
        });
        let mut set = chosen.set;
        set.sort_unstable();
        let mut confirmers = if streak_started {
            chosen.next
        } else {
            Vec::new()
        };
        confirmers.sort_unstable();
        ServerSets {
            set,
            confirmers,
            rotated_at: epoch * self.period - phase,
        }
    }
}

/// A set and the places after it.
struct Chosen {
    set: Vec<u32>,
    /// Reporting candidates outside the set, countries in turn.
    next: Vec<u32>,
}

/// The set at `epoch` (see the module's doc): slot `i` rotates at the
/// epochs equal to `i` modulo the number of slots; a country's window
/// starts after as many places as its slots rotated so far.
fn choose(classes: &[Class], epoch: i64, live: &[bool], reserve: &Reserve<'_>) -> Chosen {
    let slots: usize = classes.iter().map(|c| c.slots.len()).sum();
    let mut set: Vec<u32> = Vec::with_capacity(slots);
    let mut rest: Vec<Vec<u32>> = Vec::with_capacity(classes.len());
    // Silent candidates: those a slot would hold were they reporting
    // first, so that a fleet starting up (nobody reporting yet) has the
    // sets it keeps once everyone reports.
    let (mut silent_first, mut silent_later) = (Vec::new(), Vec::new());
    let mut short = 0;
    for class in classes {
        let cycle = class.members.len();
        let rotations: i64 = class
            .slots
            .iter()
            .map(|&i| (epoch - i as i64).div_euclid(slots as i64) + 1)
            .sum();
        let start = rotations.rem_euclid(cycle.max(1) as i64) as usize;
        let mut taken = 0;
        let mut after = Vec::new();
        let turn = (0..cycle).filter_map(|k| class.members[(start + k) % cycle]);
        for (place, w) in turn.enumerate() {
            if !live[w as usize] {
                if place < class.slots.len() {
                    silent_first.push(w);
                } else {
                    silent_later.push(w);
                }
            } else if taken < class.slots.len() {
                set.push(w);
                taken += 1;
            } else {
                after.push(w);
            }
        }
        short += class.slots.len() - taken;
        rest.push(after);
    }
    // The next reporting candidates, countries in turn.
    let mut next = Vec::new();
    let deepest = rest.iter().map(Vec::len).max().unwrap_or(0);
    for k in 0..deepest {
        next.extend(rest.iter().filter_map(|after| after.get(k)));
    }
    let fill = short.min(next.len());
    set.extend(next.drain(..fill));
    short -= fill;
    // Beyond the countries' candidates: any reporting server, then the silent.
    let more: Vec<u32> = reserve.beyond(set.as_slice()).take(short).collect();
    short -= more.len();
    set.extend(more);
    set.extend(silent_first.into_iter().chain(silent_later).take(short));
    next.truncate(INDIRECT_CONFIRMERS);
    Chosen { set, next }
}

/// A server id's hash (FNV-1a), the seed of its rendezvous scores: ids,
/// not indices, so that scores survive fleet changes.
fn key(id: &str) -> u64 {
    mix(id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    }))
}

/// Witness `w`'s rendezvous score for server `s`.
fn score(s: u64, w: u64) -> u64 {
    mix(s ^ w.rotate_left(29))
}

/// splitmix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests;
