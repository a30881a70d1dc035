//! The product's wording in its six languages, as a typed catalogue shared
//! by the server-rendered and the hydrated panel so both say the same:
//! the status wording of docs/PRODUCT.md §5 ([`Text`], [`Lang::text`]) and the
//! panel's own words ([`Ui`], [`Lang::ui`] and the methods of [`ui`] for
//! phrases with values in them), and the operator's notification messages
//! ([`notice`]).

use meshwatch::status::ServerStatus;
use serde::{Deserialize, Serialize};

mod counted;
pub mod form_error;
mod kinds;
pub mod refusal;
pub use counted::Slotted;
pub mod notice;
pub mod numbers;
/// The English product wording of docs/PRODUCT.md §5 for a status (empty
/// for healthy): what the API's captions say.
pub fn caption_en(status: ServerStatus) -> &'static str {
    match status {
        ServerStatus::Healthy => "",
        other => Lang::En.status(other),
    }
}

#[cfg(test)]
mod agreement;
#[cfg(test)]
mod glossary;
#[cfg(test)]
mod pins;
pub mod ui;
pub use numbers::Plural;
pub use ui::{PlacementWords, Ui};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Lang {
    #[default]
    En,
    Es,
    Pt,
    Sv,
    Hi,
    Ja,
}

/// A phrase of the product's wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Text {
    Unavailable,
    Unreachable,
    Blocked,
    EntryPointsUnavailable,
    NoData,
    EpNotAvailable,
    Stale,
    AgentSilent,
    UseAsVerifier,
    StopUsingAsVerifier,
    Healthy,
    Maintenance,
}

impl Text {
    /// Every phrase.
    pub const ALL: [Text; 12] = [
        Text::Unavailable,
        Text::Unreachable,
        Text::Blocked,
        Text::EntryPointsUnavailable,
        Text::NoData,
        Text::EpNotAvailable,
        Text::Stale,
        Text::AgentSilent,
        Text::UseAsVerifier,
        Text::StopUsingAsVerifier,
        Text::Healthy,
        Text::Maintenance,
    ];
}

/// Name of the cookie that remembers the operator's choice.
pub const LANG_COOKIE: &str = "meshwatch_lang";

impl Lang {
    pub const ALL: [Lang; 6] = [Lang::En, Lang::Es, Lang::Pt, Lang::Sv, Lang::Hi, Lang::Ja];

    /// The BCP 47 code (`<html lang>`, the cookie).
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Es => "es",
            // The texts are Brazilian; `pt`, `pt-PT` … still choose them.
            Lang::Pt => "pt-BR",
            Lang::Sv => "sv",
            Lang::Hi => "hi",
            Lang::Ja => "ja",
        }
    }

    /// The language's name in itself, for the switcher.
    pub fn native_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Es => "Español",
            Lang::Pt => "Português (Brasil)",
            Lang::Sv => "Svenska",
            Lang::Hi => "हिन्दी",
            Lang::Ja => "日本語",
        }
    }

    /// `es`, `ES`, `es-MX`, `pt_BR` … → the language, if it is one of ours.
    pub fn from_code(code: &str) -> Option<Lang> {
        let primary = code
            .trim()
            .split(['-', '_'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        Lang::ALL
            .into_iter()
            .find(|l| l.code().split('-').next() == Some(primary.as_str()))
    }

    /// The best of our languages for an `Accept-Language` header (by
    /// q-value, then order), English when none matches.
    pub fn negotiate(accept_language: &str) -> Lang {
        let mut best: Option<(f32, Lang)> = None;
        for item in accept_language.split(',') {
            let mut parts = item.split(';');
            let Some(lang) = parts.next().and_then(Lang::from_code) else {
                continue;
            };
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            if q > 0.0 && best.is_none_or(|(b, _)| q > b) {
                best = Some((q, lang));
            }
        }
        best.map_or(Lang::En, |(_, lang)| lang)
    }

    pub fn text(self, text: Text) -> &'static str {
        use Lang::*;
        use Text::*;
        match (text, self) {
            (Unavailable, En) => "Server unavailable",
            (Unavailable, Es) => "Servidor no disponible",
            (Unavailable, Pt) => "Servidor indisponível",
            (Unavailable, Sv) => "Servern är inte tillgänglig",
            (Unavailable, Hi) => "सर्वर उपलब्ध नहीं",
            (Unavailable, Ja) => "サーバーが利用できません",
            (Unreachable, En) => "Unreachable from your servers",
            (Unreachable, Es) => "Inaccesible desde tus servidores",
            (Unreachable, Pt) => "Inacessível a partir dos seus servidores",
            (Unreachable, Sv) => "Onåbar från dina servrar",
            (Unreachable, Hi) => "आपके सर्वरों से पहुँच योग्य नहीं",
            (Unreachable, Ja) => "お使いのサーバーから到達できません",
            (Blocked, En) => "Address blocked",
            (Blocked, Es) => "Dirección bloqueada",
            (Blocked, Pt) => "Endereço bloqueado",
            (Blocked, Sv) => "Adressen är blockerad",
            (Blocked, Hi) => "पता ब्लॉक है",
            (Blocked, Ja) => "アドレスがブロックされています",
            (EntryPointsUnavailable, En) => "Some entry points not available",
            (EntryPointsUnavailable, Es) => "Algunos puntos de entrada no disponibles",
            (EntryPointsUnavailable, Pt) => "Alguns pontos de entrada indisponíveis",
            (EntryPointsUnavailable, Sv) => "Vissa ingångspunkter är inte nåbara",
            (EntryPointsUnavailable, Hi) => "कुछ प्रवेश बिंदु अनुपलब्ध",
            (EntryPointsUnavailable, Ja) => "一部の接続ポイントに到達できません",
            (NoData, En) => "No data from server",
            (NoData, Es) => "Sin datos del servidor",
            (NoData, Pt) => "Sem dados do servidor",
            (NoData, Sv) => "Ingen data från servern",
            (NoData, Hi) => "सर्वर से कोई डेटा नहीं",
            (NoData, Ja) => "サーバーからのデータがありません",
            (EpNotAvailable, En) => "Not available",
            (EpNotAvailable, Es) => "No disponible",
            (EpNotAvailable, Pt) => "Indisponível",
            (EpNotAvailable, Sv) => "Inte nåbar",
            (EpNotAvailable, Hi) => "अनुपलब्ध",
            (EpNotAvailable, Ja) => "到達不可",
            (Stale, En) => "stale",
            (Stale, Es) => "desactualizado",
            (Stale, Pt) => "desatualizado",
            (Stale, Sv) => "inaktuell",
            (Stale, Hi) => "पुराना",
            (Stale, Ja) => "古いデータ",
            (AgentSilent, En) => "No data — agent not responding",
            (AgentSilent, Es) => "Sin datos — el agente no responde",
            (AgentSilent, Pt) => "Sem dados — agente não responde",
            (AgentSilent, Sv) => "Inga data — agenten svarar inte",
            (AgentSilent, Hi) => "कोई डेटा नहीं — एजेंट प्रतिसाद नहीं दे रहा",
            (AgentSilent, Ja) => "データなし — エージェントが応答していません",
            (UseAsVerifier, En) => "Use this server to check blocking on the others",
            (UseAsVerifier, Es) => "Usar este servidor para comprobar bloqueos en los demás",
            (UseAsVerifier, Pt) => "Usar este servidor para verificar bloqueios nos demais",
            (UseAsVerifier, Sv) => {
                "Använd den här servern för att kontrollera blockeringar hos de övriga"
            }
            (UseAsVerifier, Hi) => "इस सर्वर से बाकी सर्वरों की ब्लॉकिंग जाँचें",
            (UseAsVerifier, Ja) => "このサーバーで他のサーバーのブロックを確認する",
            (StopUsingAsVerifier, En) => "Stop using this server to check blocking on the others",
            (StopUsingAsVerifier, Es) => {
                "Dejar de usar este servidor para comprobar bloqueos en los demás"
            }
            (StopUsingAsVerifier, Pt) => {
                "Deixar de usar este servidor para verificar bloqueios nos demais"
            }
            (StopUsingAsVerifier, Sv) => {
                "Sluta använda den här servern för att kontrollera blockeringar hos de övriga"
            }
            (StopUsingAsVerifier, Hi) => "इस सर्वर से बाकी सर्वरों की ब्लॉकिंग जाँचना बंद करें",
            (StopUsingAsVerifier, Ja) => "このサーバーで他のサーバーのブロックを確認するのをやめる",
            (Healthy, En) => "Healthy",
            (Healthy, Es) => "En buen estado",
            (Healthy, Pt) => "Saudável",
            (Healthy, Sv) => "Frisk",
            (Healthy, Hi) => "स्वस्थ",
            (Healthy, Ja) => "正常",
            (Maintenance, En) => "In maintenance",
            (Maintenance, Es) => "En mantenimiento",
            (Maintenance, Pt) => "Em manutenção",
            (Maintenance, Sv) => "Under underhåll",
            (Maintenance, Hi) => "रखरखाव में",
            (Maintenance, Ja) => "メンテナンス中",
        }
    }

    /// The status wording of one server status.
    pub fn status(self, status: ServerStatus) -> &'static str {
        self.text(match status {
            ServerStatus::Unavailable => Text::Unavailable,
            ServerStatus::Unreachable => Text::Unreachable,
            ServerStatus::Blocked => Text::Blocked,
            ServerStatus::NoData => Text::NoData,
            ServerStatus::EntryPointsUnavailable => Text::EntryPointsUnavailable,
            ServerStatus::Healthy => Text::Healthy,
            ServerStatus::Maintenance => Text::Maintenance,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_is_the_api_wording() {
        let expected = [
            (ServerStatus::Unavailable, "Server unavailable"),
            (ServerStatus::Unreachable, "Unreachable from your servers"),
            (ServerStatus::Blocked, "Address blocked"),
            (ServerStatus::NoData, "No data from server"),
            (
                ServerStatus::EntryPointsUnavailable,
                "Some entry points not available",
            ),
        ];
        for (status, words) in expected {
            assert_eq!(Lang::En.status(status), words);
            assert_eq!(caption_en(status), words);
        }
        assert_eq!(caption_en(ServerStatus::Healthy), "");
    }

    #[test]
    fn the_published_wording_is_kept_exactly() {
        assert_eq!(
            Lang::Ja.status(ServerStatus::Unavailable),
            "サーバーが利用できません"
        );
        assert_eq!(
            Lang::Es.status(ServerStatus::NoData),
            "Sin datos del servidor"
        );
        assert_eq!(Lang::Sv.text(Text::Stale), "inaktuell");
        assert_eq!(Lang::Hi.text(Text::EpNotAvailable), "अनुपलब्ध");
        assert_eq!(
            Lang::Ja.unreachable_count(2, 7),
            "7台中2台のサーバーから到達できません"
        );
        assert_eq!(
            Lang::Hi.unreachable_count(2, 7),
            "आपके 7 में से 2 सर्वर इस तक नहीं पहुँच पा रहे"
        );
        assert_eq!(
            Lang::Pt.unreachable_count(2, 3),
            "2 de 3 dos seus servidores não conseguem alcançá-lo"
        );
        // At k = 1 the verb agrees with the one server (issue #35).
        assert_eq!(
            Lang::Pt.unreachable_count(1, 3),
            "1 dos seus 3 servidores não consegue alcançá-lo"
        );
        assert_eq!(
            Lang::Es.unreachable_count(1, 30),
            "1 de tus 30 servidores no puede alcanzarlo"
        );
        assert_eq!(
            Lang::Sv.unreachable_count(1, 30),
            "1 av dina 30 servrar når den inte"
        );
        assert_eq!(
            Lang::Hi.unreachable_count(1, 30),
            "आपके 30 में से 1 सर्वर इस तक नहीं पहुँच पा रहा"
        );
    }

    #[test]
    fn languages_come_from_codes_and_accept_language() {
        assert_eq!(Lang::from_code("es-MX"), Some(Lang::Es));
        assert_eq!(Lang::from_code("PT_br"), Some(Lang::Pt));
        assert_eq!(Lang::from_code("de"), None);
        assert_eq!(
            Lang::negotiate("de-DE,de;q=0.9,ja;q=0.8,en;q=0.7"),
            Lang::Ja
        );
        assert_eq!(Lang::negotiate("sv, en;q=0.5"), Lang::Sv);
        assert_eq!(Lang::negotiate("fr-FR"), Lang::En);
        assert_eq!(Lang::negotiate("es;q=0, hi;q=0.3"), Lang::Hi);
        assert_eq!(Lang::negotiate(""), Lang::En);
        for lang in Lang::ALL {
            assert_eq!(Lang::from_code(lang.code()), Some(lang));
        }
    }

    /// Every fixed phrase (status wording and panel words) in `lang`.
    fn all_texts(lang: Lang) -> Vec<&'static str> {
        Text::ALL
            .iter()
            .map(|t| lang.text(*t))
            .chain(Ui::ALL.iter().map(|k| lang.ui(*k)))
            .collect()
    }

    #[test]
    fn text_all_lists_every_phrase() {
        // Exhaustive: a new variant fails to compile here until listed.
        let position = |t: Text| match t {
            Text::Unavailable => 0,
            Text::Unreachable => 1,
            Text::Blocked => 2,
            Text::EntryPointsUnavailable => 3,
            Text::NoData => 4,
            Text::EpNotAvailable => 5,
            Text::Stale => 6,
            Text::AgentSilent => 7,
            Text::UseAsVerifier => 8,
            Text::StopUsingAsVerifier => 9,
            Text::Healthy => 10,
            Text::Maintenance => 11,
        };
        for (i, t) in Text::ALL.into_iter().enumerate() {
            assert_eq!(position(t), i, "{t:?}");
        }
        assert!(Ui::ALL.len() > 150, "{} panel keys", Ui::ALL.len());
    }

    #[test]
    fn every_key_has_a_text_in_every_language() {
        for lang in Lang::ALL {
            for (i, text) in all_texts(lang).into_iter().enumerate() {
                assert!(!text.trim().is_empty(), "{lang:?}: phrase #{i} is empty");
            }
            for (name, text) in ui::samples(lang) {
                assert!(!text.trim().is_empty(), "{lang:?}: {name} is empty");
            }
        }
    }

    #[test]
    fn every_language_is_really_translated() {
        let english = all_texts(Lang::En);
        let english_samples = ui::samples(Lang::En);
        for lang in Lang::ALL.into_iter().filter(|l| *l != Lang::En) {
            let texts = all_texts(lang);
            let differ = texts.iter().zip(&english).filter(|(t, e)| t != e).count();
            assert!(
                differ * 10 >= texts.len() * 9,
                "{lang:?}: only {differ} of {} phrases differ from English",
                texts.len()
            );
            let samples = ui::samples(lang);
            for ((name, text), (_, english)) in samples.iter().zip(&english_samples) {
                assert_ne!(text, english, "{lang:?}: {name} is English");
            }
        }
    }

    /// The wording a native-speaker review corrected, pinned per language.
    #[test]
    fn the_reviewed_wording_is_kept() {
        let (es, pt, sv, hi, ja) = (Lang::Es, Lang::Pt, Lang::Sv, Lang::Hi, Lang::Ja);
        assert_eq!(es.ui(Ui::Breadcrumb), "Migas de pan");
        assert_eq!(es.ui(Ui::TrafficListener), "Receptor de tráfico");
        assert!(es.ui(Ui::UptimeHelp).starts_with(
            "La disponibilidad es la proporción del tiempo en rotación, es decir, fuera de «Servidor no disponible», «Inaccesible desde tus servidores» y «Dirección bloqueada»."
        ));
        assert_eq!(pt.ui(Ui::TrafficListener), "Porta de escuta");
        assert_eq!(pt.ui(Ui::StateFailed), "Com falha");
        assert_eq!(
            pt.ui(Ui::NoSustainedFailure),
            "Nenhuma testemunha relata uma falha persistente ao tentar alcançá-lo."
        );
        assert!(pt
            .ui(Ui::FailureStreakHelp)
            .contains("uma única tentativa malsucedida"));
        assert_eq!(sv.status(ServerStatus::Healthy), "Frisk");
        assert_eq!(sv.ui(Ui::KindTest), "Test");
        assert_eq!(sv.ui(Ui::CheckFailing), "Fungerar inte");
        assert_eq!(sv.ui(Ui::SendTestEmail), "Skicka testmejl");
        assert_eq!(
            sv.check_fails_since("a", "b", "12:00", "5 min"),
            "Kontrollen från a till b har misslyckats sedan 12:00 (5 min)"
        );
        assert_eq!(hi.ui(Ui::PageNotFound), "पृष्ठ नहीं मिला");
        assert_eq!(hi.ui(Ui::Legend), "संकेत-सूची");
        assert_eq!(hi.ui(Ui::StaleAfter), "पुराना माने जाने की अवधि (सेकंड)");
        assert_eq!(
            hi.check_fails_since("a", "b", "12:00", "5 मिनट"),
            "a से b तक की जाँच 12:00 से विफल है (5 मिनट)"
        );
        assert_eq!(
            ja.ui(Ui::InTheSubscription),
            "サブスクリプションに含まれています"
        );
        assert_eq!(ja.ui(Ui::ReachIt), "到達可能");
        assert_eq!(
            ja.check_fails_since("a", "b", "12:00", "5分前"),
            "12:00（5分前）以降、a から b へのチェックが失敗しています"
        );
        // §5's status words where the help names statuses.
        for status in [
            "Servern är inte tillgänglig",
            "Onåbar från dina servrar",
            "Adressen är blockerad",
        ] {
            assert!(sv.ui(Ui::UptimeHelp).contains(status), "{status}");
        }
        for status in ["सर्वर उपलब्ध नहीं", "आपके सर्वरों से पहुँच योग्य नहीं", "पता ब्लॉक है"]
        {
            assert!(hi.ui(Ui::UptimeHelp).contains(status), "{status}");
        }
    }

    #[test]
    fn the_panel_english_is_kept_exactly() {
        let en = Lang::En;
        assert_eq!(en.ui(Ui::SignIn), "Sign in");
        assert_eq!(en.ui(Ui::ChangeLanguage), "Change language");
        assert_eq!(en.ui(Ui::SignedInAs), "Signed in as ");
        assert_eq!(en.ui(Ui::WitnessServer), "Witness \\ server");
        assert_eq!(en.ui(Ui::ChartStart), "24 h ago");
        assert_eq!(
            en.ui(Ui::StaleAfterHelp),
            "A server whose last report is older is \"No data from server\", and its evidence stops counting (default 180 = 3 report intervals)."
        );
        assert_eq!(en.showing_servers(3, 10), "Showing 3 of 10 servers");
        assert_eq!(
            en.replica_roles("panel-1", Some("panel-2")),
            "This panel is replica panel-1; replica panel-2 evaluates the verdicts."
        );
        assert_eq!(
            en.showing_users(51, 100, 230),
            "Showing 51–100 of 230 users"
        );
        assert_eq!(
            en.stale_servers(2),
            "2 servers with stale evidence (stale)."
        );
        assert_eq!(
            en.undelivered_notifications(3, 1),
            "3 notifications not delivered (no email or webhook configured), 1 failed. "
        );
        assert_eq!(
            en.token_created("ci"),
            "Token \"ci\" created. Copy it now: it is not shown again."
        );
        assert_eq!(
            en.chart_summary("CPU", "42.0%"),
            "CPU over the last 24 hours, peak 42.0%"
        );
        let now = chrono::Utc::now();
        for (s, reads) in [
            (-30, "just now"),
            (4, "just now"),
            (5, "5 s ago"),
            (119, "119 s ago"),
            (120, "2 min ago"),
            (7199, "119 min ago"),
            (7200, "2 h ago"),
            (172_799, "47 h ago"),
            (172_800, "2 d ago"),
        ] {
            let from = now - chrono::Duration::seconds(s);
            assert_eq!(en.age(from, now), reads, "{s} s");
        }
    }

    #[test]
    fn a_server_that_left_rotation_never_reads_as_not_assigned() {
        use crate::views::ServerRef;
        use meshwatch::balance::Placement;
        let other = ServerRef {
            id: meshwatch::ServerId::parse("de-2").expect("slug"),
            name: "Frankfurt 2".into(),
            country: "DE".into(),
        };
        for lang in Lang::ALL {
            let not_assigned = lang.ui(Ui::NotAssignedToUser);
            for placement in [
                Placement::ReplacedBy(other.clone()),
                Placement::OutOfRotation,
                Placement::OutBestAvailable(other.clone()),
            ] {
                let words = lang.placement(&placement);
                assert_eq!(
                    words.headline,
                    lang.ui(Ui::OutOfRotation),
                    "{lang:?} {placement:?}"
                );
                let detail = words.detail.unwrap_or_default();
                assert!(
                    !detail.is_empty() && !detail.contains(not_assigned),
                    "{lang:?} {placement:?}: {detail:?}"
                );
            }
            assert_eq!(
                lang.placement(&Placement::NotAssigned).headline,
                not_assigned
            );
            assert!(lang
                .placement(&Placement::OutBestAvailable(other.clone()))
                .detail
                .unwrap_or_default()
                .contains("Frankfurt 2"));
        }
        let en = Lang::En;
        assert_eq!(
            en.placement(&Placement::ReplacedBy(other.clone())),
            PlacementWords {
                headline: "Out of rotation".into(),
                detail: Some("Replaced by Frankfurt 2 (DE)".into()),
            }
        );
        assert_eq!(
            en.placement(&Placement::OutOfRotation).detail.as_deref(),
            Some("Not replaced: this route has no spare server in rotation. The user's other servers on it still serve.")
        );
        assert_eq!(
            en.placement(&Placement::OutBestAvailable(other)).detail.as_deref(),
            Some("Every server is out of rotation: subscriptions serve the best available one, Frankfurt 2 (DE).")
        );
        assert_eq!(
            en.placement(&Placement::NotAssigned).headline,
            "Not assigned to this user"
        );
        assert_eq!(
            Lang::Sv.placement(&Placement::OutOfRotation).headline,
            "Ur rotation"
        );
    }

    #[test]
    fn the_panel_speaks_each_language() {
        assert_eq!(Lang::Es.ui(Ui::SignOut), "Cerrar sesión");
        assert_eq!(Lang::Pt.ui(Ui::Password), "Senha");
        assert_eq!(Lang::Sv.ui(Ui::Settings), "Inställningar");
        assert_eq!(Lang::Hi.ui(Ui::Language), "भाषा");
        assert_eq!(Lang::Ja.ui(Ui::Settings), "設定");
        assert_eq!(Lang::Ja.ui(Ui::EntryPoints), "接続ポイント");
        assert_eq!(Lang::Sv.showing_servers(3, 10), "Visar 3 av 10 servrar");
        assert_eq!(Lang::Hi.page_of(2, 5), "5 में से पृष्ठ 2");
        assert_eq!(
            Lang::Es.stale_servers(2),
            "2 servidores con datos desactualizados (desactualizado)."
        );
        let now = chrono::Utc::now();
        let ago = |lang: Lang, s: i64| lang.age(now - chrono::Duration::seconds(s), now);
        assert_eq!(ago(Lang::Pt, 300), "há 5 min");
        assert_eq!(ago(Lang::Ja, 2), "たった今");
        assert_eq!(ago(Lang::Sv, 259_200), "för 3 dagar sedan");
    }
}
