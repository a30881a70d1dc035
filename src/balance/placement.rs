//! Where a server stands in one user's subscription, as the user card
//! words it. Derived from a route's [`RouteServing`] alone, so the card,
//! its tests and any other reader tell the same cases apart: a server the
//! user had that left rotation is never mistaken for one they never had.

use super::{AssignmentRow, RouteServing};
use crate::ids::ServerId;
use serde::{Deserialize, Serialize};

/// Where a server stands for one user on one route. `S` names the other
/// server a case refers to: a [`ServerId`] from the balancing, a display
/// reference once the panel has looked it up (see [`Placement::map`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Placement<S = ServerId> {
    /// Given to the user and in rotation: the subscription serves it.
    Serving,
    /// Given to the user, out of rotation; this server serves in its place.
    ReplacedBy(S),
    /// Not one of the user's own: serves in place of this out-of-rotation one.
    StandsInFor(S),
    /// Given to the user, out of rotation, and no spare server of the
    /// route is in rotation to take its place; the user's other servers of
    /// the route still serve.
    OutOfRotation,
    /// Given to the user, out of rotation, and so is every other server of
    /// the route: the route serves its best available one, this server.
    OutBestAvailable(S),
    /// Every server of the route is out of rotation and this one is the
    /// best available: the subscription serves it anyway (a route is never
    /// emptied).
    BestAvailable,
    /// A server of the route that the balancing never gave to this user.
    NotAssigned,
}

impl<S> Placement<S> {
    /// Whether the user's subscription carries this server now.
    pub fn in_subscription(&self) -> bool {
        matches!(
            self,
            Placement::Serving | Placement::StandsInFor(_) | Placement::BestAvailable
        )
    }

    /// The same placement naming the other server differently; `None` when
    /// `name` cannot name it.
    pub fn map<T>(self, name: impl FnOnce(S) -> Option<T>) -> Option<Placement<T>> {
        Some(match self {
            Placement::Serving => Placement::Serving,
            Placement::ReplacedBy(s) => Placement::ReplacedBy(name(s)?),
            Placement::StandsInFor(s) => Placement::StandsInFor(name(s)?),
            Placement::OutOfRotation => Placement::OutOfRotation,
            Placement::OutBestAvailable(s) => Placement::OutBestAvailable(name(s)?),
            Placement::BestAvailable => Placement::BestAvailable,
            Placement::NotAssigned => Placement::NotAssigned,
        })
    }
}

impl RouteServing {
    /// Where `server` stands for this route's user: a server without a row
    /// was never given to them.
    pub fn placement(&self, server: &ServerId) -> Placement {
        self.rows
            .iter()
            .find(|row| &row.server_id == server)
            .map_or(Placement::NotAssigned, |row| self.placement_of(row))
    }

    /// Where one of this route's rows stands. Every row is one the
    /// balancing gave the user, a stand-in, or the best available one: a
    /// row out of the subscription is always one of the user's own servers
    /// that left rotation.
    pub fn placement_of(&self, row: &AssignmentRow) -> Placement {
        if let Some(by) = &row.replaced_by {
            return Placement::ReplacedBy(by.clone());
        }
        if let Some(of) = &row.replaces {
            return Placement::StandsInFor(of.clone());
        }
        match (row.in_subscription, self.best_available) {
            (true, false) => Placement::Serving,
            (true, true) => Placement::BestAvailable,
            (false, true) => self
                .serving
                .first()
                .map_or(Placement::OutOfRotation, |best| {
                    Placement::OutBestAvailable(best.clone())
                }),
            (false, false) => Placement::OutOfRotation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Placement;
    use crate::balance::assign;
    use crate::ids::{RouteId, UserId};
    use crate::rules::world::{sid, world, World};

    fn alice() -> UserId {
        UserId::parse("alice").expect("user slug")
    }

    fn route_de(w: &World) -> crate::balance::RouteServing {
        let eval = w.evaluation();
        let de = RouteId::parse("de").expect("route slug");
        assign(&w.mesh, eval.verdicts(), &alice(), &[de]).remove(0)
    }

    /// Three German servers, every one given to every user (no
    /// `servers_per_user`), and a witness abroad.
    fn germany() -> World {
        let mut w = world(&[
            ("de-1", "DE"),
            ("de-2", "DE"),
            ("de-3", "DE"),
            ("nl-1", "NL"),
        ]);
        w.healthy();
        w
    }

    #[test]
    fn a_server_of_the_user_that_left_rotation_is_out_of_rotation_not_unassigned() {
        let mut w = germany();
        let now = w.now;
        w.report_at("de-1", now, false, true);
        let route = route_de(&w);
        assert_eq!(route.placement(&sid("de-1")), Placement::OutOfRotation);
        assert!(!route.placement(&sid("de-1")).in_subscription());
        assert_eq!(route.placement(&sid("de-2")), Placement::Serving);
    }

    #[test]
    fn a_replaced_server_names_its_replacement_and_the_stand_in_names_it() {
        let mut w = germany().servers_per_user("de", 1);
        let own = route_de(&w).serving[0].clone();
        let now = w.now;
        w.report_at(own.as_str(), now, false, true);
        let route = route_de(&w);
        let Placement::ReplacedBy(by) = route.placement(&own) else {
            panic!("{:?}", route.placement(&own));
        };
        assert_eq!(route.placement(&by), Placement::StandsInFor(own));
        assert!(route.placement(&by).in_subscription());
    }

    #[test]
    fn a_server_the_balancing_never_gave_the_user_is_not_assigned() {
        let w = germany().servers_per_user("de", 1);
        let route = route_de(&w);
        let own = route.serving[0].clone();
        let others: Vec<_> = ["de-1", "de-2", "de-3"]
            .map(sid)
            .into_iter()
            .filter(|s| *s != own)
            .collect();
        assert_eq!(others.len(), 2);
        for other in others {
            assert_eq!(route.placement(&other), Placement::NotAssigned);
        }
    }

    #[test]
    fn when_the_whole_route_is_out_the_user_s_servers_point_to_the_best_available() {
        let mut w = germany();
        let now = w.now;
        for s in ["de-1", "de-2", "de-3"] {
            w.report_at(s, now, false, false);
        }
        let route = route_de(&w);
        assert!(route.best_available);
        let best = route.serving[0].clone();
        assert_eq!(route.placement(&best), Placement::BestAvailable);
        for s in ["de-1", "de-2", "de-3"].map(sid) {
            if s != best {
                assert_eq!(
                    route.placement(&s),
                    Placement::OutBestAvailable(best.clone())
                );
            }
        }
    }

    #[test]
    fn map_renames_the_other_server_and_keeps_the_case() {
        let replaced: Placement = Placement::ReplacedBy(sid("de-2"));
        assert_eq!(
            replaced.map(|s| Some(s.to_string())),
            Some(Placement::ReplacedBy("de-2".to_owned()))
        );
        let unknown: Placement = Placement::StandsInFor(sid("de-9"));
        assert_eq!(unknown.map(|_| None::<String>), None);
        let plain: Placement = Placement::NotAssigned;
        assert_eq!(plain.map(|_| None::<String>), Some(Placement::NotAssigned));
    }
}
