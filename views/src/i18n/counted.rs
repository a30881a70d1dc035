//! The phrases with a count in them, each in the forms its language
//! needs: which form a count takes is its CLDR plural category
//! ([`Lang::plural`]); every language falls back to its `Other` form
//! (Spanish and Portuguese "many", for millions, reads like it with
//! digits). Counts are written with the language's digit grouping, and
//! lists of names joined as the language joins them.

use super::{Lang, Text};
use serde::{Deserialize, Serialize};

/// A phrase with one count still to fill in: the text before and after
/// it. Its form follows another count, chosen already; where a verb
/// agrees with the count still to come, the phrase also carries its
/// words for exactly one ([`Lang::is_one`] is `n == 1` for every whole
/// count in all six languages), so the browser fills it in without the
/// plural rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slotted {
    before: String,
    after: String,
    /// The words around a count of one, when they differ.
    one: Option<(String, String)>,
}

impl Slotted {
    /// Where the count goes while the phrase is rendered.
    const SLOT: &'static str = "\u{1}";

    fn split_one(text: &str) -> (String, String) {
        let (before, after) = text.split_once(Self::SLOT).unwrap_or((text, ""));
        (before.to_owned(), after.to_owned())
    }

    fn split(text: String, one: Option<String>) -> Slotted {
        let (before, after) = Self::split_one(&text);
        Slotted {
            before,
            after,
            one: one.map(|one| Self::split_one(&one)),
        }
    }

    /// The words before and after the count.
    pub fn parts(&self) -> (&str, &str) {
        (&self.before, &self.after)
    }

    /// The words before and after a count of one, when they differ.
    pub fn one_parts(&self) -> Option<(&str, &str)> {
        self.one.as_ref().map(|(b, a)| (b.as_str(), a.as_str()))
    }

    /// The phrase from its [`parts`](Self::parts) and
    /// [`one_parts`](Self::one_parts).
    pub fn from_parts(before: String, after: String, one: Option<(String, String)>) -> Slotted {
        Slotted { before, after, one }
    }

    /// The phrase with `n`, written as `lang` writes numbers.
    pub fn fill(&self, lang: Lang, n: u64) -> String {
        let (before, after) = match &self.one {
            Some((before, after)) if n == 1 => (before, after),
            _ => (&self.before, &self.after),
        };
        format!("{before}{}{after}", lang.number(n))
    }
}

impl Lang {
    /// "k of n of your servers can't reach it": docs/PRODUCT.md §5's
    /// template for every k but one. At k = 1 the verb agrees with the
    /// one server, which the languages with a verb in the singular say
    /// as "1 of your 30 servers" ("1 de tus 30 servidores no puede…").
    pub fn unreachable_count(self, k: u32, n: u32) -> String {
        let k_one = self.is_one(k.into());
        let n_one = n == 1;
        let (k, n) = (self.number(k.into()), self.number(n.into()));
        match (self, k_one) {
            // "1 de tus 1 servidores" reads wrong: a fleet of one keeps
            // the template, its verb in the singular.
            (Lang::Es, true) if n_one => {
                format!("{k} de {n} de tus servidores no puede alcanzarlo")
            }
            (Lang::Pt, true) if n_one => {
                format!("{k} de {n} dos seus servidores não consegue alcançá-lo")
            }
            (Lang::Sv, true) if n_one => self.unreachable_count_template(&k, &n),
            (Lang::Es, true) => format!("{k} de tus {n} servidores no puede alcanzarlo"),
            (Lang::Pt, true) => format!("{k} dos seus {n} servidores não consegue alcançá-lo"),
            (Lang::Sv, true) => format!("{k} av dina {n} servrar når den inte"),
            (Lang::Hi, true) => format!("आपके {n} में से {k} सर्वर इस तक नहीं पहुँच पा रहा"),
            _ => self.unreachable_count_template(&k, &n),
        }
    }

    /// docs/PRODUCT.md §5's `unreachable_count`, exactly.
    fn unreachable_count_template(self, k: &str, n: &str) -> String {
        match self {
            Lang::En => format!("{k} of {n} of your servers can't reach it"),
            Lang::Es => format!("{k} de {n} de tus servidores no pueden alcanzarlo"),
            Lang::Pt => format!("{k} de {n} dos seus servidores não conseguem alcançá-lo"),
            Lang::Sv => format!("{k} av {n} av dina servrar når den inte"),
            Lang::Hi => format!("आपके {n} में से {k} सर्वर इस तक नहीं पहुँच पा रहे"),
            Lang::Ja => format!("{n}台中{k}台のサーバーから到達できません"),
        }
    }

    /// "3 notifications not delivered (…), 1 failed. " — followed by a
    /// link to the outbox.
    pub fn undelivered_notifications(self, undelivered: u32, failed: u32) -> String {
        let u_one = self.is_one(undelivered.into());
        let f_one = self.is_one(failed.into());
        let (u, f) = (self.number(undelivered.into()), self.number(failed.into()));
        let undelivered = match (self, u_one) {
            (Lang::En, true) => format!("{u} notification not delivered"),
            (Lang::En, false) => format!("{u} notifications not delivered"),
            (Lang::Es, true) => format!("{u} notificación sin entregar"),
            (Lang::Es, false) => format!("{u} notificaciones sin entregar"),
            (Lang::Pt, true) => format!("{u} notificação não entregue"),
            (Lang::Pt, false) => format!("{u} notificações não entregues"),
            (Lang::Sv, true) => format!("{u} avisering inte levererad"),
            (Lang::Sv, false) => format!("{u} aviseringar inte levererade"),
            (Lang::Hi, true) => format!("{u} सूचना नहीं भेजी गई"),
            (Lang::Hi, false) => format!("{u} सूचनाएँ नहीं भेजी गईं"),
            (Lang::Ja, _) => format!("{u}件の通知が未配信です"),
        };
        let failed = match (self, f_one) {
            (Lang::En, _) => format!("{f} failed"),
            (Lang::Es, true) => format!("{f} fallida"),
            (Lang::Es, false) => format!("{f} fallidas"),
            (Lang::Pt, _) => format!("{f} com falha"),
            (Lang::Sv, true) => format!("{f} misslyckad"),
            (Lang::Sv, false) => format!("{f} misslyckade"),
            (Lang::Hi, _) => format!("{f} विफल"),
            (Lang::Ja, _) => format!("{f}件が失敗しました"),
        };
        match self {
            Lang::En => format!("{undelivered} (no email or webhook configured), {failed}. "),
            Lang::Es => format!("{undelivered} (no hay correo ni webhook configurado), {failed}. "),
            Lang::Pt => format!("{undelivered} (nenhum e-mail ou webhook configurado), {failed}. "),
            Lang::Sv => {
                format!("{undelivered} (ingen e-post eller webhook konfigurerad), {failed}. ")
            }
            Lang::Hi => format!("{undelivered} (कोई ईमेल या वेबहुक कॉन्फ़िगर नहीं है), {failed}। "),
            Lang::Ja => {
                format!("{undelivered}（メールも Webhook も設定されていません）。{failed}。")
            }
        }
    }

    /// "2 servers with stale evidence (stale)." — the badge's word last.
    pub fn stale_servers(self, n: u32) -> String {
        let stale = self.text(Text::Stale);
        let one = self.is_one(n.into());
        let n = self.number(n.into());
        match (self, one) {
            (Lang::En, true) => format!("{n} server with stale evidence ({stale})."),
            (Lang::En, false) => format!("{n} servers with stale evidence ({stale})."),
            (Lang::Es, true) => format!("{n} servidor con datos desactualizados ({stale})."),
            (Lang::Es, false) => {
                format!("{n} servidores con datos desactualizados ({stale}).")
            }
            (Lang::Pt, true) => format!("{n} servidor com evidências desatualizadas ({stale})."),
            (Lang::Pt, false) => {
                format!("{n} servidores com evidências desatualizadas ({stale}).")
            }
            (Lang::Sv, true) => format!("{n} server med inaktuellt underlag ({stale})."),
            (Lang::Sv, false) => format!("{n} servrar med inaktuellt underlag ({stale})."),
            (Lang::Hi, _) => format!("पुराने साक्ष्य वाले {n} सर्वर ({stale})।"),
            (Lang::Ja, _) => format!("データが古いサーバー：{n}台（{stale}）。"),
        }
    }

    /// The Overview's line: `n` connected panels fail to sync.
    pub fn connectors_failing(self, n: u32) -> String {
        let one = self.is_one(n.into());
        let n = self.number(n.into());
        match (self, one) {
            (Lang::En, true) => format!("{n} connected panel is failing to sync: its hosts stay as they are."),
            (Lang::En, false) => format!("{n} connected panels are failing to sync: their hosts stay as they are."),
            (Lang::Es, true) => format!("{n} panel conectado no logra sincronizar: sus hosts se quedan como están."),
            (Lang::Es, false) => format!("{n} paneles conectados no logran sincronizar: sus hosts se quedan como están."),
            (Lang::Pt, true) => format!("{n} painel conectado não consegue sincronizar: seus hosts ficam como estão."),
            (Lang::Pt, false) => format!("{n} painéis conectados não conseguem sincronizar: seus hosts ficam como estão."),
            (Lang::Sv, true) => format!("{n} ansluten panel misslyckas med att synka: dess värdar ligger kvar som de är."),
            (Lang::Sv, false) => format!("{n} anslutna paneler misslyckas med att synka: deras värdar ligger kvar som de är."),
            (Lang::Hi, true) => format!("{n} जुड़ा हुआ पैनल सिंक नहीं हो पा रहा: उसके होस्ट जैसे हैं वैसे ही रहेंगे।"),
            (Lang::Hi, false) => format!("{n} जुड़े हुए पैनल सिंक नहीं हो पा रहे: उनके होस्ट जैसे हैं वैसे ही रहेंगे।"),
            (Lang::Ja, _) => format!("接続パネル{n}件が同期に失敗しています。ホストはそのままです。"),
        }
    }

    /// "2 servers per user".
    pub fn servers_per_user(self, k: u32) -> String {
        let one = self.is_one(k.into());
        let k = self.number(k.into());
        match (self, one) {
            (Lang::En, true) => format!("{k} server per user"),
            (Lang::En, false) => format!("{k} servers per user"),
            (Lang::Es, true) => format!("{k} servidor por usuario"),
            (Lang::Es, false) => format!("{k} servidores por usuario"),
            (Lang::Pt, true) => format!("{k} servidor por usuário"),
            (Lang::Pt, false) => format!("{k} servidores por usuário"),
            (Lang::Sv, true) => format!("{k} server per användare"),
            (Lang::Sv, false) => format!("{k} servrar per användare"),
            (Lang::Hi, _) => format!("प्रति उपयोगकर्ता {k} सर्वर"),
            (Lang::Ja, _) => format!("ユーザーあたり{k}台のサーバー"),
        }
    }

    /// An out-of-rotation server whose users get the `cover` servers
    /// (named), joined as a list.
    pub fn out_of_rotation_served_by<S: AsRef<str>>(self, cover: &[S]) -> String {
        let one = self.is_one(cover.len() as u64);
        let cover = self.list(cover);
        match (self, one) {
            (Lang::En, _) => format!("Out of rotation — its users are served by {cover}"),
            (Lang::Es, true) => format!("Fuera de rotación — a sus usuarios los atiende {cover}"),
            (Lang::Es, false) => {
                format!("Fuera de rotación — a sus usuarios los atienden {cover}")
            }
            (Lang::Pt, _) => format!("Fora de rotação — seus usuários são atendidos por {cover}"),
            (Lang::Sv, _) => format!("Ur rotation — dess användare betjänas av {cover}"),
            (Lang::Hi, _) => {
                format!("रोटेशन से बाहर — इसके उपयोगकर्ताओं को {cover} से सेवा मिल रही है")
            }
            (Lang::Ja, _) => format!("ローテーション外 — ユーザーには {cover} が提供されます"),
        }
    }

    /// "196 of 200 servers in rotation" (a big route's card).
    pub fn in_rotation_of(self, in_rotation: usize, total: usize) -> String {
        let one = self.is_one(total as u64);
        let (n, total) = (self.number(in_rotation as u64), self.number(total as u64));
        match (self, one) {
            (Lang::En, true) => format!("{n} of {total} server in rotation"),
            (Lang::En, false) => format!("{n} of {total} servers in rotation"),
            (Lang::Es, true) => format!("{n} de {total} servidor en rotación"),
            (Lang::Es, false) => format!("{n} de {total} servidores en rotación"),
            (Lang::Pt, true) => format!("{n} de {total} servidor em rotação"),
            (Lang::Pt, false) => format!("{n} de {total} servidores em rotação"),
            (Lang::Sv, true) => format!("{n} av {total} server i rotation"),
            (Lang::Sv, false) => format!("{n} av {total} servrar i rotation"),
            (Lang::Hi, _) => format!("{total} में से {n} सर्वर रोटेशन में"),
            (Lang::Ja, _) => format!("{total}台中{n}台がローテーション中"),
        }
    }

    /// "Test message queued for 2 targets."
    pub fn test_message_queued(self, targets: usize) -> String {
        let one = self.is_one(targets as u64);
        let n = self.number(targets as u64);
        match (self, one) {
            (Lang::En, true) => format!("Test message queued for {n} target."),
            (Lang::En, false) => format!("Test message queued for {n} targets."),
            (Lang::Es, true) => format!("Mensaje de prueba en cola para {n} destino."),
            (Lang::Es, false) => format!("Mensaje de prueba en cola para {n} destinos."),
            (Lang::Pt, true) => format!("Mensagem de teste na fila para {n} destino."),
            (Lang::Pt, false) => format!("Mensagem de teste na fila para {n} destinos."),
            (Lang::Sv, _) => format!("Testmeddelande köat till {n} mottagare."),
            (Lang::Hi, true) => {
                format!("{n} प्राप्तकर्ता के लिए परीक्षण संदेश कतार में जोड़ा गया।")
            }
            (Lang::Hi, false) => {
                format!("{n} प्राप्तकर्ताओं के लिए परीक्षण संदेश कतार में जोड़ा गया।")
            }
            (Lang::Ja, _) => {
                format!("{n}件の宛先にテストメッセージを送信待ちとして登録しました。")
            }
        }
    }

    /// A delivery error and how many attempts it took.
    pub fn after_attempts(self, error: &str, attempts: i64) -> String {
        let attempts = attempts.max(0) as u64;
        let one = self.is_one(attempts);
        let n = self.number(attempts);
        match (self, one) {
            (Lang::En, true) => format!("{error} (after {n} attempt)"),
            (Lang::En, false) => format!("{error} (after {n} attempts)"),
            (Lang::Es, true) => format!("{error} (tras {n} intento)"),
            (Lang::Es, false) => format!("{error} (tras {n} intentos)"),
            (Lang::Pt, true) => format!("{error} (após {n} tentativa)"),
            (Lang::Pt, false) => format!("{error} (após {n} tentativas)"),
            (Lang::Sv, _) => format!("{error} (efter {n} försök)"),
            (Lang::Hi, true) => format!("{error} ({n} प्रयास के बाद)"),
            (Lang::Hi, false) => format!("{error} ({n} प्रयासों के बाद)"),
            (Lang::Ja, _) => format!("{error}（{n}回試行後）"),
        }
    }

    /// "Showing 3 of 10 servers".
    pub fn showing_servers(self, shown: usize, total: usize) -> String {
        self.showing_servers_of(total).fill(self, shown as u64)
    }

    /// "Showing … of 10 servers", the shown count filled in later: the
    /// noun follows the total, so the servers filter (an island) counts
    /// in the browser without the plural rules in its WASM; the Hindi
    /// verb, which agrees with the shown count, comes in both forms.
    pub fn showing_servers_of(self, total: usize) -> Slotted {
        let one = self.is_one(total as u64);
        let (shown, total) = (Slotted::SLOT, self.number(total as u64));
        let shown_one = match self {
            Lang::Hi => Some(format!("{total} में से {shown} सर्वर दिखाया जा रहा है")),
            Lang::En | Lang::Es | Lang::Pt | Lang::Sv | Lang::Ja => None,
        };
        Slotted::split(
            match (self, one) {
                (Lang::En, true) => format!("Showing {shown} of {total} server"),
                (Lang::En, false) => format!("Showing {shown} of {total} servers"),
                (Lang::Es, true) => format!("Mostrando {shown} de {total} servidor"),
                (Lang::Es, false) => format!("Mostrando {shown} de {total} servidores"),
                (Lang::Pt, true) => format!("Mostrando {shown} de {total} servidor"),
                (Lang::Pt, false) => format!("Mostrando {shown} de {total} servidores"),
                (Lang::Sv, true) => format!("Visar {shown} av {total} server"),
                (Lang::Sv, false) => format!("Visar {shown} av {total} servrar"),
                (Lang::Hi, _) => format!("{total} में से {shown} सर्वर दिखाए जा रहे हैं"),
                (Lang::Ja, _) => format!("{total}台中{shown}台のサーバーを表示"),
            },
            shown_one,
        )
    }

    /// "Showing 51–100 of 230 users".
    pub fn showing_users(self, first: usize, last: usize, total: u32) -> String {
        let one = self.is_one(total.into());
        let (first, last) = (self.number(first as u64), self.number(last as u64));
        let total = self.number(total.into());
        match (self, one) {
            (Lang::En, true) => format!("Showing {first}–{last} of {total} user"),
            (Lang::En, false) => format!("Showing {first}–{last} of {total} users"),
            (Lang::Es, true) => format!("Mostrando {first}–{last} de {total} usuario"),
            (Lang::Es, false) => format!("Mostrando {first}–{last} de {total} usuarios"),
            (Lang::Pt, true) => format!("Mostrando {first}–{last} de {total} usuário"),
            (Lang::Pt, false) => format!("Mostrando {first}–{last} de {total} usuários"),
            (Lang::Sv, _) => format!("Visar {first}–{last} av {total} användare"),
            // The verb agrees with how many are shown.
            (Lang::Hi, _) if first == last => {
                format!("{total} में से {first} उपयोगकर्ता दिखाया जा रहा है")
            }
            (Lang::Hi, _) => format!("{total} में से {first}–{last} उपयोगकर्ता दिखाए जा रहे हैं"),
            (Lang::Ja, _) => format!("全{total}人中{first}–{last}人目を表示"),
        }
    }

    /// The note on a witness that fails too many servers to be trusted
    /// (docs/PRODUCT.md R1: "can't reach k of n servers — its votes are
    /// ignored").
    pub fn unreliable_witness(self, failing: u32, of: u32) -> String {
        // The noun follows n ("of 1 server"), except in Hindi, where it
        // follows k.
        let n_one = self.is_one(of.into());
        let k_one = self.is_one(failing.into());
        let (k, n) = (self.number(failing.into()), self.number(of.into()));
        match (self, n_one) {
            (Lang::En, true) => format!("Unreliable witness: can't reach {k} of {n} server — its votes are ignored."),
            (Lang::En, false) => format!("Unreliable witness: can't reach {k} of {n} servers — its votes are ignored."),
            (Lang::Es, true) => format!("Testigo poco fiable: no alcanza {k} de {n} servidor — sus votos se ignoran."),
            (Lang::Es, false) => format!("Testigo poco fiable: no alcanza {k} de {n} servidores — sus votos se ignoran."),
            (Lang::Pt, true) => format!("Testemunha não confiável: não alcança {k} de {n} servidor — seus votos são ignorados."),
            (Lang::Pt, false) => format!("Testemunha não confiável: não alcança {k} de {n} servidores — seus votos são ignorados."),
            (Lang::Sv, true) => format!("Opålitligt vittne: når inte {k} av {n} server — dess röster ignoreras."),
            (Lang::Sv, false) => format!("Opålitligt vittne: når inte {k} av {n} servrar — dess röster ignoreras."),
            (Lang::Hi, _) if k_one => format!("अविश्वसनीय गवाह: {n} में से {k} सर्वर तक नहीं पहुँच पाता — इसके वोट अनदेखे किए जाते हैं।"),
            (Lang::Hi, _) => format!("अविश्वसनीय गवाह: {n} में से {k} सर्वरों तक नहीं पहुँच पाता — इसके वोट अनदेखे किए जाते हैं।"),
            (Lang::Ja, _) => format!("信頼できない証人：{n}台中{k}台のサーバーに到達できません — その投票は破棄されます。"),
        }
    }

    /// The banner of a whole-fleet fault (Overview and server cards).
    pub fn witness_fault(self, fault: meshwatch::verdict::WitnessFault) -> String {
        let one = self.is_one(fault.unreliable.into());
        let (k, n) = (
            self.number(fault.unreliable.into()),
            self.number(fault.witnesses.into()),
        );
        // How many of the witnesses are unreliable; the verb agrees with k.
        let figure = match (self, one) {
            (Lang::En, true) => format!("{k} of {n} is unreliable"),
            (Lang::En, false) => format!("{k} of {n} are unreliable"),
            (Lang::Es, true) => format!("{k} de {n} no es fiable"),
            (Lang::Es, false) => format!("{k} de {n} no son fiables"),
            (Lang::Pt, true) => format!("{k} de {n} não é confiável"),
            (Lang::Pt, false) => format!("{k} de {n} não são confiáveis"),
            (Lang::Sv, true) => format!("{k} av {n} är opålitligt"),
            (Lang::Sv, false) => format!("{k} av {n} är opålitliga"),
            (Lang::Hi, true) => format!("{n} में से {k} अविश्वसनीय है"),
            (Lang::Hi, false) => format!("{n} में से {k} अविश्वसनीय हैं"),
            (Lang::Ja, _) => format!("{n}台中{k}台が信頼できません"),
        };
        match self {
            Lang::En => format!("Most witnesses can't reach most servers ({figure}): the problem is probably the network of the witnesses, not the servers. Nothing has been taken out of rotation."),
            Lang::Es => format!("La mayoría de los testigos no alcanza a la mayoría de los servidores ({figure}): el problema probablemente está en la red de los testigos, no en los servidores. No se ha sacado nada de la rotación."),
            Lang::Pt => format!("A maioria das testemunhas não alcança a maioria dos servidores ({figure}): o problema provavelmente está na rede das testemunhas, não nos servidores. Nada foi tirado de rotação."),
            Lang::Sv => format!("De flesta vittnen når inte de flesta servrar ({figure}): felet ligger troligen i vittnenas nätverk, inte i servrarna. Inget har tagits ur rotation."),
            Lang::Hi => format!("अधिकांश गवाह अधिकांश सर्वरों तक नहीं पहुँच पा रहे ({figure}): समस्या शायद गवाहों के नेटवर्क में है, सर्वरों में नहीं। किसी भी सर्वर को रोटेशन से नहीं हटाया गया है।"),
            Lang::Ja => format!("ほとんどの証人がほとんどのサーバーに到達できません（{figure}）。問題はサーバーではなく、証人のネットワークにある可能性が高いです。ローテーションから外されたサーバーはありません。"),
        }
    }

    /// The note on a blocked address; `verifiers` are the ones that see
    /// the block (named), joined as a list.
    pub fn blocked_by_verifier<S: AsRef<str>>(self, verifiers: &[S]) -> String {
        let one = self.is_one(verifiers.len() as u64);
        let by = self.list(verifiers);
        match (self, one) {
            (Lang::En, true) => format!("Address blocked as seen by the verifier {by}: consider changing this server's IP address."),
            (Lang::En, false) => format!("Address blocked as seen by the verifiers {by}: consider changing this server's IP address."),
            (Lang::Es, true) => format!("Dirección bloqueada según el verificador {by}: considera cambiar la dirección IP de este servidor."),
            (Lang::Es, false) => format!("Dirección bloqueada según los verificadores {by}: considera cambiar la dirección IP de este servidor."),
            (Lang::Pt, true) => format!("Endereço bloqueado segundo o verificador {by}: considere trocar o endereço IP deste servidor."),
            (Lang::Pt, false) => format!("Endereço bloqueado segundo os verificadores {by}: considere trocar o endereço IP deste servidor."),
            (Lang::Sv, true) => format!("Adressen är blockerad enligt kontrollservern {by}: överväg att byta den här serverns IP-adress."),
            (Lang::Sv, false) => format!("Adressen är blockerad enligt kontrollservrarna {by}: överväg att byta den här serverns IP-adress."),
            (Lang::Hi, true) => format!("जाँचकर्ता {by} के अनुसार पता ब्लॉक है: इस सर्वर का IP पता बदलने पर विचार करें।"),
            (Lang::Hi, false) => format!("जाँचकर्ताओं {by} के अनुसार पता ब्लॉक है: इस सर्वर का IP पता बदलने पर विचार करें।"),
            (Lang::Ja, _) => format!("検証サーバー {by} から見てアドレスがブロックされています。このサーバーの IP アドレスの変更を検討してください。"),
        }
    }

    /// The note on a blocked address when verifiers name their networks:
    /// where it is blocked (`blocked`: each a network, or a verifier
    /// without one) and where it is still reached (`reached`, may be
    /// empty), each joined as a list.
    pub fn blocked_on_networks<S: AsRef<str>>(self, blocked: &[S], reached: &[S]) -> String {
        let (b, r) = (self.list(blocked), self.list(reached));
        match (self, reached.is_empty()) {
            (Lang::En, true) => format!("Address blocked on {b}: consider changing this server's IP address."),
            (Lang::En, false) => format!("Address blocked on {b}; still reachable from {r}: consider changing this server's IP address."),
            (Lang::Es, true) => format!("Dirección bloqueada en {b}: considera cambiar la dirección IP de este servidor."),
            (Lang::Es, false) => format!("Dirección bloqueada en {b}; aún accesible desde {r}: considera cambiar la dirección IP de este servidor."),
            (Lang::Pt, true) => format!("Endereço bloqueado em {b}: considere trocar o endereço IP deste servidor."),
            (Lang::Pt, false) => format!("Endereço bloqueado em {b}; ainda acessível a partir de {r}: considere trocar o endereço IP deste servidor."),
            (Lang::Sv, true) => format!("Adressen är blockerad i {b}: överväg att byta den här serverns IP-adress."),
            (Lang::Sv, false) => format!("Adressen är blockerad i {b}; fortfarande nåbar från {r}: överväg att byta den här serverns IP-adress."),
            (Lang::Hi, true) => format!("{b} पर पता ब्लॉक है: इस सर्वर का IP पता बदलने पर विचार करें।"),
            (Lang::Hi, false) => format!("{b} पर पता ब्लॉक है; {r} से अब भी पहुँच योग्य है: इस सर्वर का IP पता बदलने पर विचार करें।"),
            (Lang::Ja, true) => format!("{b}でアドレスがブロックされています。このサーバーの IP アドレスの変更を検討してください。"),
            (Lang::Ja, false) => format!("{b}でアドレスがブロックされています（{r}からはまだ到達できます）。このサーバーの IP アドレスの変更を検討してください。"),
        }
    }

    /// Where a block holds, short, for the user card: "Blocked on MTS
    /// mobile; still reachable from Rostelecom home".
    pub fn blocked_where<S: AsRef<str>>(self, blocked: &[S], reached: &[S]) -> String {
        let (b, r) = (self.list(blocked), self.list(reached));
        match (self, reached.is_empty()) {
            (Lang::En, true) => format!("Blocked on {b}"),
            (Lang::En, false) => format!("Blocked on {b}; still reachable from {r}"),
            (Lang::Es, true) => format!("Bloqueada en {b}"),
            (Lang::Es, false) => format!("Bloqueada en {b}; aún accesible desde {r}"),
            (Lang::Pt, true) => format!("Bloqueado em {b}"),
            (Lang::Pt, false) => format!("Bloqueado em {b}; ainda acessível a partir de {r}"),
            (Lang::Sv, true) => format!("Blockerad i {b}"),
            (Lang::Sv, false) => format!("Blockerad i {b}; fortfarande nåbar från {r}"),
            (Lang::Hi, true) => format!("{b} पर ब्लॉक"),
            (Lang::Hi, false) => format!("{b} पर ब्लॉक; {r} से अब भी पहुँच योग्य"),
            (Lang::Ja, true) => format!("{b}でブロック"),
            (Lang::Ja, false) => format!("{b}でブロック（{r}からは到達可能）"),
        }
    }

    /// One network's count of blocked servers: "MTS mobile: 3 servers
    /// blocked".
    pub fn blocked_servers_on(self, network: &str, servers: u32) -> String {
        let one = self.is_one(servers.into());
        let n = self.number(servers.into());
        match (self, one) {
            (Lang::En, true) => format!("{network}: {n} server blocked"),
            (Lang::En, false) => format!("{network}: {n} servers blocked"),
            (Lang::Es, true) => format!("{network}: {n} servidor bloqueado"),
            (Lang::Es, false) => format!("{network}: {n} servidores bloqueados"),
            (Lang::Pt, true) => format!("{network}: {n} servidor bloqueado"),
            (Lang::Pt, false) => format!("{network}: {n} servidores bloqueados"),
            (Lang::Sv, true) => format!("{network}: {n} server blockerad"),
            (Lang::Sv, false) => format!("{network}: {n} servrar blockerade"),
            (Lang::Hi, _) => format!("{network}: {n} सर्वर ब्लॉक"),
            (Lang::Ja, _) => format!("{network}：{n}台のサーバーがブロック中"),
        }
    }

    /// The mesh summary when every probing server reaches it. The card
    /// shows it for one server or more (none reads "no fresh witness").
    pub fn all_reach_it(self, of: u32) -> String {
        // "Your only server": one server, in Japanese too.
        let only = of == 1;
        let n = self.number(of.into());
        match (self, only) {
            (Lang::En, true) => "Your only server that probes it reaches it.".into(),
            (Lang::En, false) => format!("All {n} of your servers that probe it reach it."),
            (Lang::Es, true) => "Tu único servidor que lo sondea lo alcanza.".into(),
            (Lang::Es, false) => format!("Todos tus {n} servidores que lo sondean lo alcanzan."),
            (Lang::Pt, true) => "Seu único servidor que o sonda consegue alcançá-lo.".into(),
            (Lang::Pt, false) => format!("Todos os seus {n} servidores que o sondam o alcançam."),
            (Lang::Sv, true) => "Din enda server som sonderar den når den.".into(),
            (Lang::Sv, false) => format!("Alla dina {n} servrar som sonderar den når den."),
            (Lang::Hi, true) => "इसकी जाँच करने वाला आपका एकमात्र सर्वर इस तक पहुँच रहा है।".into(),
            (Lang::Hi, false) => {
                format!("इसकी जाँच करने वाले आपके सभी {n} सर्वर इस तक पहुँच रहे हैं।")
            }
            (Lang::Ja, true) => "プローブしている唯一のサーバーから到達できます。".into(),
            (Lang::Ja, false) => format!("プローブしている{n}台のサーバーすべてから到達できます。"),
        }
    }

    /// Sign-ins refused for a while after too many wrong passwords.
    pub fn too_many_attempts(self, minutes: u64) -> String {
        // "min" is the same at every count.
        let n = self.number(minutes);
        match self {
            Lang::En => format!("Too many wrong passwords. Try again in {n} min."),
            Lang::Es => {
                format!("Demasiadas contraseñas incorrectas. Vuelve a intentarlo en {n} min.")
            }
            Lang::Pt => format!("Muitas senhas incorretas. Tente novamente em {n} min."),
            Lang::Sv => format!("För många felaktiga lösenord. Försök igen om {n} min."),
            Lang::Hi => format!("बहुत अधिक गलत पासवर्ड। {n} मिनट बाद फिर से प्रयास करें।"),
            Lang::Ja => format!("パスワードの誤りが多すぎます。{n}分後にもう一度お試しください。"),
        }
    }

    /// The password rule under the password fields.
    pub fn min_password_len(self, n: usize) -> String {
        let one = self.is_one(n as u64);
        let n = self.number(n as u64);
        match (self, one) {
            (Lang::En, true) => format!("At least {n} character."),
            (Lang::En, false) => format!("At least {n} characters."),
            (Lang::Es, true) => format!("Al menos {n} carácter."),
            (Lang::Es, false) => format!("Al menos {n} caracteres."),
            (Lang::Pt, true) => format!("Pelo menos {n} caractere."),
            (Lang::Pt, false) => format!("Pelo menos {n} caracteres."),
            (Lang::Sv, _) => format!("Minst {n} tecken."),
            (Lang::Hi, _) => format!("कम से कम {n} अक्षर।"),
            (Lang::Ja, _) => format!("{n}文字以上。"),
        }
    }

    /// "3 d ago": whole days, in the language's word for them.
    pub(super) fn days_ago(self, days: u64) -> String {
        let one = self.is_one(days);
        let n = self.number(days);
        match (self, one) {
            (Lang::En, _) => format!("{n} d ago"),
            (Lang::Es, true) => format!("hace {n} día"),
            (Lang::Es, false) => format!("hace {n} días"),
            (Lang::Pt, true) => format!("há {n} dia"),
            (Lang::Pt, false) => format!("há {n} dias"),
            (Lang::Sv, true) => format!("för {n} dag sedan"),
            (Lang::Sv, false) => format!("för {n} dagar sedan"),
            (Lang::Hi, _) => format!("{n} दिन पहले"),
            (Lang::Ja, _) => format!("{n}日前"),
        }
    }
}

/// A phrase with a count, rendered in a language at a count.
#[cfg(test)]
pub(super) type CountedPhrase = fn(Lang, u64) -> String;

/// Every phrase with a count, by name, as a function of the count, for
/// the tests that render each at many counts. Counts a phrase takes in
/// pairs get the same count twice, or a fixed partner that keeps the
/// sentence true.
#[cfg(test)]
pub(super) fn phrases() -> Vec<(&'static str, CountedPhrase)> {
    // Lists of names are never empty where the panel shows them.
    fn names(n: u64) -> Vec<String> {
        ["Moscow 1 (RU)", "Tehran 2 (IR)", "Beijing 3 (CN)"]
            .iter()
            .cycle()
            .take(n.max(1) as usize)
            .map(|s| s.to_string())
            .collect()
    }
    vec![
        ("unreachable_count", |l, n| {
            l.unreachable_count(n as u32, 30)
        }),
        ("unreachable_count.of", |l, n| {
            l.unreachable_count(1, n as u32)
        }),
        ("undelivered_notifications", |l, n| {
            l.undelivered_notifications(n as u32, 0)
        }),
        ("undelivered_notifications.failed", |l, n| {
            l.undelivered_notifications(30, n as u32)
        }),
        ("stale_servers", |l, n| l.stale_servers(n as u32)),
        ("connectors_failing", |l, n| l.connectors_failing(n as u32)),
        ("servers_per_user", |l, n| l.servers_per_user(n as u32)),
        ("out_of_rotation_served_by", |l, n| {
            l.out_of_rotation_served_by(&names(n))
        }),
        ("test_message_queued", |l, n| {
            l.test_message_queued(n as usize)
        }),
        ("in_rotation_of", |l, n| l.in_rotation_of(1, n as usize)),
        ("after_attempts", |l, n| {
            l.after_attempts("timeout", n as i64)
        }),
        ("showing_servers", |l, n| {
            l.showing_servers(n as usize, n as usize)
        }),
        ("showing_users", |l, n| {
            l.showing_users(1, n as usize, n as u32)
        }),
        ("unreliable_witness", |l, n| {
            l.unreliable_witness(n as u32, n as u32)
        }),
        ("unreliable_witness.of", |l, n| {
            l.unreliable_witness(n.min(2) as u32, n as u32)
        }),
        ("witness_fault", |l, n| {
            l.witness_fault(meshwatch::verdict::WitnessFault {
                unreliable: n as u32,
                witnesses: 30,
            })
        }),
        ("blocked_by_verifier", |l, n| {
            l.blocked_by_verifier(&names(n))
        }),
        ("all_reach_it", |l, n| l.all_reach_it(n as u32)),
        ("blocked_on_networks", |l, n| {
            l.blocked_on_networks(&names(n), &["Rostelecom home".to_owned()])
        }),
        ("blocked_on_networks.alone", |l, n| {
            l.blocked_on_networks(&names(n), &[] as &[String])
        }),
        ("min_password_len", |l, n| l.min_password_len(n as usize)),
        ("too_many_attempts", |l, n| l.too_many_attempts(n)),
        ("blocked_servers_on", |l, n| {
            l.blocked_servers_on("MTS mobile", n as u32)
        }),
        ("blocked_where", |l, n| {
            l.blocked_where(&names(n), &["Rostelecom home".to_owned()])
        }),
        ("blocked_where.alone", |l, n| {
            l.blocked_where(&names(n), &[] as &[String])
        }),
        ("days_ago", |l, n| l.days_ago(n)),
    ]
}
