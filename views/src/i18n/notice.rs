//! The operator's messages about blocked addresses (docs/PRODUCT.md R4) — email
//! subject and body, and the webhook's text — in the six languages.
//!
//! Each kind of message has one template: [`Lang::incident_notice`] lays
//! out a block that started or cleared (what happened; server, country,
//! addresses, verifiers and since when, one per line; what it means; what
//! to do), [`Lang::fleet_wide_notice`] the fold of many at once. Only the
//! words differ between languages, never the layout, and every line break
//! is a real one.

use super::Lang;
use crate::views::ServerRef;
use chrono::{DateTime, Utc};

/// Whether a server's block started or cleared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockEvent {
    Started,
    Cleared,
}

/// What a message about one server's block tells the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incident {
    pub event: BlockEvent,
    pub server: ServerRef,
    /// `host:port` of its entry points, each once.
    pub addresses: Vec<String>,
    /// Started: the verifiers that see the block. Cleared: the verifiers,
    /// which reach it again.
    pub verifiers: Vec<ServerRef>,
    /// When the block started or cleared.
    pub at: DateTime<Utc>,
    /// Started, when verifiers name their networks (§6): where the block
    /// holds and where the server is still reached (networks, or
    /// verifiers without one); empty otherwise.
    pub blocked_on: Vec<String>,
    pub still_reached_from: Vec<String>,
    /// Started: every verifier's block with its kind (§8), and the SNIs
    /// of the server's entry points; a kind other than `ip` ends the
    /// message with its own advice instead of a new address.
    pub blocks: Vec<meshwatch::network::BlockOnNetwork>,
    pub snis: Vec<String>,
}

/// A rendered message: the email's subject and plain-text body (the
/// webhook carries both).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub subject: String,
    pub body: String,
}

/// The fixed words of the incident template in one language. Labels carry
/// their own punctuation (a colon and a space).
struct Words {
    server: &'static str,
    country: &'static str,
    addresses: &'static str,
    verifiers: &'static str,
    blocked_since: &'static str,
    blocked_on: &'static str,
    still_reached_from: &'static str,
    cleared_at: &'static str,
    blocked_effect: &'static str,
    blocked_advice: &'static str,
    cleared_effect: &'static str,
    cleared_advice: &'static str,
    /// An empty list of addresses, and of verifiers (the word agrees
    /// with each field's noun).
    no_addresses: &'static str,
    no_verifiers: &'static str,
    list_separator: &'static str,
}

fn words(lang: Lang) -> Words {
    match lang {
        Lang::En => Words {
            server: "Server: ",
            country: "Country: ",
            addresses: "Addresses: ",
            verifiers: "Verifiers: ",
            blocked_since: "Blocked since: ",
            blocked_on: "Blocked on: ",
            still_reached_from: "Still reachable from: ",
            cleared_at: "Cleared at: ",
            blocked_effect: "Its entry points are no longer served to users while its route has other servers in rotation.",
            blocked_advice: "Advice: change this server's IP address. meshwatch notices by itself when the address is reachable again.",
            cleared_effect: "The verifiers reach it again: its entry points are served again unless another condition keeps it out of rotation.",
            cleared_advice: "No action is needed.",
            no_addresses: "none",
            no_verifiers: "none",
            list_separator: ", ",
        },
        Lang::Es => Words {
            server: "Servidor: ",
            country: "País: ",
            addresses: "Direcciones: ",
            verifiers: "Verificadores: ",
            blocked_since: "Bloqueada desde: ",
            blocked_on: "Bloqueada en: ",
            still_reached_from: "Aún accesible desde: ",
            cleared_at: "Desbloqueada el: ",
            blocked_effect: "Sus puntos de entrada ya no se sirven a los usuarios mientras su ruta tenga otros servidores en rotación.",
            blocked_advice: "Recomendación: cambia la dirección IP de este servidor. meshwatch detectará por sí solo cuándo vuelve a ser accesible.",
            cleared_effect: "Los verificadores vuelven a alcanzarlo: sus puntos de entrada se sirven de nuevo, salvo que otra condición lo mantenga fuera de rotación.",
            cleared_advice: "No hace falta hacer nada.",
            no_addresses: "ninguna",
            no_verifiers: "ninguno",
            list_separator: ", ",
        },
        Lang::Pt => Words {
            server: "Servidor: ",
            country: "País: ",
            addresses: "Endereços: ",
            verifiers: "Verificadores: ",
            blocked_since: "Bloqueado desde: ",
            blocked_on: "Bloqueado em: ",
            still_reached_from: "Ainda acessível a partir de: ",
            cleared_at: "Desbloqueado em: ",
            blocked_effect: "Seus pontos de entrada deixam de ser servidos aos usuários enquanto sua rota tiver outros servidores em rotação.",
            blocked_advice: "Recomendação: troque o endereço IP deste servidor. O meshwatch percebe sozinho quando o endereço voltar a ser acessível.",
            cleared_effect: "Os verificadores voltaram a alcançá-lo: seus pontos de entrada são servidos novamente, a menos que outra condição o mantenha fora de rotação.",
            cleared_advice: "Nenhuma ação é necessária.",
            no_addresses: "nenhum",
            no_verifiers: "nenhum",
            list_separator: ", ",
        },
        Lang::Sv => Words {
            server: "Server: ",
            country: "Land: ",
            addresses: "Adresser: ",
            verifiers: "Kontrollservrar: ",
            blocked_since: "Blockerad sedan: ",
            blocked_on: "Blockerad i: ",
            still_reached_from: "Fortfarande nåbar från: ",
            cleared_at: "Blockeringen hävdes: ",
            blocked_effect: "Dess ingångspunkter levereras inte längre till användarna så länge rutten har andra servrar i rotation.",
            blocked_advice: "Råd: byt den här serverns IP-adress. meshwatch märker själv när adressen är nåbar igen.",
            cleared_effect: "Kontrollservrarna når den igen: dess ingångspunkter levereras på nytt, om inte något annat tillstånd håller den ur rotation.",
            cleared_advice: "Ingen åtgärd behövs.",
            no_addresses: "inga",
            no_verifiers: "inga",
            list_separator: ", ",
        },
        Lang::Hi => Words {
            server: "सर्वर: ",
            country: "देश: ",
            addresses: "पते: ",
            verifiers: "जाँचकर्ता: ",
            blocked_since: "ब्लॉक होने का समय: ",
            blocked_on: "इन नेटवर्कों पर ब्लॉक: ",
            still_reached_from: "अब भी यहाँ से पहुँच योग्य: ",
            cleared_at: "ब्लॉक हटने का समय: ",
            blocked_effect: "जब तक इसके रूट में रोटेशन में दूसरे सर्वर हैं, इसके प्रवेश बिंदु उपयोगकर्ताओं को नहीं दिए जाते।",
            blocked_advice: "सलाह: इस सर्वर का IP पता बदलें। पता फिर से पहुँच योग्य होने पर meshwatch अपने-आप पहचान लेगा।",
            cleared_effect: "जाँचकर्ता फिर से इस तक पहुँच रहे हैं: इसके प्रवेश बिंदु फिर से दिए जा रहे हैं, जब तक कोई दूसरी स्थिति इसे रोटेशन से बाहर न रखे।",
            cleared_advice: "कोई कार्रवाई आवश्यक नहीं है।",
            no_addresses: "कोई नहीं",
            no_verifiers: "कोई नहीं",
            list_separator: ", ",
        },
        Lang::Ja => Words {
            server: "サーバー：",
            country: "国：",
            addresses: "アドレス：",
            verifiers: "検証サーバー：",
            blocked_since: "ブロック開始：",
            blocked_on: "ブロックされているネットワーク：",
            still_reached_from: "まだ到達できるネットワーク：",
            cleared_at: "ブロック解除：",
            blocked_effect: "ルートにローテーション中の他のサーバーがある間、このサーバーの接続ポイントはユーザーに提供されません。",
            blocked_advice: "推奨：このサーバーの IP アドレスを変更してください。アドレスに再び到達できるようになると、meshwatch が自動的に検知します。",
            cleared_effect: "検証サーバーから再び到達できます。他の状態によってローテーション外になっていない限り、接続ポイントは再び提供されます。",
            cleared_advice: "対応は不要です。",
            no_addresses: "なし",
            no_verifiers: "なし",
            list_separator: "、",
        },
    }
}

/// "Frankfurt 1 (de-1)": how the messages name a server.
fn named(server: &ServerRef) -> String {
    format!("{} ({})", server.name, server.id)
}

fn join_or(items: &[String], separator: &str, none: &str) -> String {
    if items.is_empty() {
        none.to_owned()
    } else {
        items.join(separator)
    }
}

/// Lines joined with real line breaks, the last one ended too.
fn lines(lines: &[String]) -> String {
    let mut body = lines.join("\n");
    body.push('\n');
    body
}

impl Lang {
    /// The message about one server's block starting or clearing.
    pub fn incident_notice(self, incident: &Incident) -> Notice {
        let w = words(self);
        let server = &incident.server;
        let (name, id) = (server.name.as_str(), server.id.as_str());
        let verifiers: Vec<String> = incident
            .verifiers
            .iter()
            .map(|v| format!("{} ({}, {})", v.name, v.id, v.country))
            .collect();
        let (when, effect, advice) = match incident.event {
            BlockEvent::Started => (w.blocked_since, w.blocked_effect, w.blocked_advice),
            BlockEvent::Cleared => (w.cleared_at, w.cleared_effect, w.cleared_advice),
        };
        let mut facts = vec![
            self.incident_headline(incident.event, name, id),
            String::new(),
            format!("{}{}", w.server, named(server)),
            format!("{}{}", w.country, server.country),
            format!(
                "{}{}",
                w.addresses,
                join_or(&incident.addresses, w.list_separator, w.no_addresses)
            ),
            format!(
                "{}{}",
                w.verifiers,
                join_or(&verifiers, w.list_separator, w.no_verifiers)
            ),
        ];
        if !incident.blocked_on.is_empty() {
            facts.push(format!(
                "{}{}",
                w.blocked_on,
                self.list(&incident.blocked_on)
            ));
            if !incident.still_reached_from.is_empty() {
                let reached = self.list(&incident.still_reached_from);
                facts.push(format!("{}{reached}", w.still_reached_from));
            }
        }
        facts.extend([
            format!("{when}{}", incident.at.format("%Y-%m-%d %H:%M UTC")),
            String::new(),
            effect.to_owned(),
        ]);
        // §8: a kind a new address does not fix has its own advice; the
        // address advice stays for address blocks (and blocks of before).
        let kind_advice: Vec<String> = match incident.event {
            BlockEvent::Started => {
                let snis: Vec<&str> = incident.snis.iter().map(String::as_str).collect();
                let name = |id: &meshwatch::ServerId| {
                    incident
                        .verifiers
                        .iter()
                        .find(|v| &v.id == id)
                        .map_or_else(|| id.to_string(), named)
                };
                self.block_notes(&incident.blocks, &[], &snis, name)
                    .into_iter()
                    .filter(|(kind, _)| *kind != meshwatch::verdict::BlockKind::Ip)
                    .map(|(_, text)| text)
                    .collect()
            }
            BlockEvent::Cleared => Vec::new(),
        };
        let address_helps = incident.event == BlockEvent::Cleared
            || incident.blocks.is_empty()
            || incident.blocks.iter().any(|b| b.kind.new_address_helps());
        if address_helps {
            facts.push(advice.to_owned());
        }
        facts.extend(kind_advice);
        let body = lines(&facts);
        Notice {
            subject: self.incident_subject(incident.event, name, id),
            body,
        }
    }

    fn incident_subject(self, event: BlockEvent, name: &str, id: &str) -> String {
        use BlockEvent::*;
        match (self, event) {
            (Lang::En, Started) => format!("meshwatch: address of {name} ({id}) is blocked"),
            (Lang::En, Cleared) => {
                format!("meshwatch: address of {name} ({id}) is reachable again")
            }
            (Lang::Es, Started) => {
                format!("meshwatch: la dirección de {name} ({id}) está bloqueada")
            }
            (Lang::Es, Cleared) => {
                format!("meshwatch: la dirección de {name} ({id}) vuelve a ser accesible")
            }
            (Lang::Pt, Started) => format!("meshwatch: o endereço de {name} ({id}) está bloqueado"),
            (Lang::Pt, Cleared) => {
                format!("meshwatch: o endereço de {name} ({id}) voltou a ser acessível")
            }
            (Lang::Sv, Started) => format!("meshwatch: adressen till {name} ({id}) är blockerad"),
            (Lang::Sv, Cleared) => format!("meshwatch: adressen till {name} ({id}) är nåbar igen"),
            (Lang::Hi, Started) => format!("meshwatch: {name} ({id}) का पता ब्लॉक है"),
            (Lang::Hi, Cleared) => {
                format!("meshwatch: {name} ({id}) का पता फिर से पहुँच योग्य है")
            }
            (Lang::Ja, Started) => {
                format!("meshwatch: {name}（{id}）のアドレスがブロックされています")
            }
            (Lang::Ja, Cleared) => format!("meshwatch: {name}（{id}）のアドレスに再び到達できます"),
        }
    }

    fn incident_headline(self, event: BlockEvent, name: &str, id: &str) -> String {
        use BlockEvent::*;
        match (self, event) {
            (Lang::En, Started) => {
                format!("The address of server {name} ({id}) is blocked as seen by your verifiers.")
            }
            (Lang::En, Cleared) => format!("The block on server {name} ({id}) has cleared."),
            (Lang::Es, Started) => format!(
                "La dirección del servidor {name} ({id}) está bloqueada según tus verificadores."
            ),
            (Lang::Es, Cleared) => {
                format!("El bloqueo del servidor {name} ({id}) se ha levantado.")
            }
            (Lang::Pt, Started) => format!(
                "O endereço do servidor {name} ({id}) está bloqueado segundo seus verificadores."
            ),
            (Lang::Pt, Cleared) => format!("O bloqueio do servidor {name} ({id}) foi removido."),
            (Lang::Sv, Started) => {
                format!(
                    "Adressen till servern {name} ({id}) är blockerad enligt dina kontrollservrar."
                )
            }
            (Lang::Sv, Cleared) => format!("Blockeringen av servern {name} ({id}) har hävts."),
            (Lang::Hi, Started) => {
                format!("आपके जाँचकर्ताओं के अनुसार सर्वर {name} ({id}) का पता ब्लॉक है।")
            }
            (Lang::Hi, Cleared) => format!("सर्वर {name} ({id}) का ब्लॉक हट गया है।"),
            (Lang::Ja, Started) => format!(
                "検証サーバーから見て、サーバー {name}（{id}）のアドレスがブロックされています。"
            ),
            (Lang::Ja, Cleared) => {
                format!("サーバー {name}（{id}）のブロックが解除されました。")
            }
        }
    }

    /// The one message of a whole-fleet fault: most witnesses can't reach
    /// most servers, since `at`.
    pub fn witness_fault_notice(
        self,
        fault: meshwatch::verdict::WitnessFault,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Notice {
        let banner = self.witness_fault(fault);
        let at = at.format("%Y-%m-%d %H:%M UTC");
        let (subject, advice) = match self {
            Lang::En => (
                "meshwatch: most witnesses can't reach most servers",
                "Check the network your servers share (or the panel's own), before any single server.",
            ),
            Lang::Es => (
                "meshwatch: la mayoría de los testigos no alcanza a la mayoría de los servidores",
                "Revisa la red que comparten tus servidores (o la del propio panel) antes que cualquier servidor concreto.",
            ),
            Lang::Pt => (
                "meshwatch: a maioria das testemunhas não alcança a maioria dos servidores",
                "Verifique a rede que seus servidores compartilham (ou a do próprio painel) antes de qualquer servidor isolado.",
            ),
            Lang::Sv => (
                "meshwatch: de flesta vittnen når inte de flesta servrar",
                "Kontrollera nätverket som dina servrar delar (eller panelens eget) innan du tittar på enskilda servrar.",
            ),
            Lang::Hi => (
                "meshwatch: अधिकांश गवाह अधिकांश सर्वरों तक नहीं पहुँच पा रहे",
                "किसी एक सर्वर से पहले, अपने सर्वरों का साझा नेटवर्क (या पैनल का अपना नेटवर्क) जाँचें।",
            ),
            Lang::Ja => (
                "meshwatch: ほとんどの証人がほとんどのサーバーに到達できません",
                "個々のサーバーより先に、サーバーが共有するネットワーク（またはパネル自身のネットワーク）を確認してください。",
            ),
        };
        Notice {
            subject: subject.to_owned(),
            body: format!("{banner}\n\n{at}\n\n{advice}\n"),
        }
    }

    /// The message that actions switched themselves off: a run would have
    /// gone past the budget (`over`), at `at`.
    pub fn actions_off_notice(
        self,
        over: meshwatch::actions::OverBudget,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Notice {
        use meshwatch::actions::OverBudget;
        let at = at.format("%Y-%m-%d %H:%M UTC");
        let subject = match self {
            Lang::En => "meshwatch: actions switched themselves off",
            Lang::Es => "meshwatch: las acciones se desactivaron solas",
            Lang::Pt => "meshwatch: as ações se desativaram sozinhas",
            Lang::Sv => "meshwatch: åtgärderna stängde av sig själva",
            Lang::Hi => "meshwatch: क्रियाएँ अपने आप बंद हो गईं",
            Lang::Ja => "meshwatch: アクションが自動的に無効になりました",
        };
        let why = match (self, over) {
            (Lang::En, OverBudget::RunsPerHour(n)) => format!("{n} runs started in the last hour, the most the budget allows (action_runs_per_hour)."),
            (Lang::En, OverBudget::Cooldown(_)) => "An action was due again for a server it ran for within its cooldown (action_cooldown).".to_owned(),
            (Lang::Es, OverBudget::RunsPerHour(n)) => format!("Se iniciaron {n} ejecuciones en la última hora, el máximo que permite el presupuesto (action_runs_per_hour)."),
            (Lang::Es, OverBudget::Cooldown(_)) => "Una acción debía ejecutarse otra vez para un servidor dentro de su pausa mínima (action_cooldown).".to_owned(),
            (Lang::Pt, OverBudget::RunsPerHour(n)) => format!("{n} execuções começaram na última hora, o máximo que o orçamento permite (action_runs_per_hour)."),
            (Lang::Pt, OverBudget::Cooldown(_)) => "Uma ação deveria rodar de novo para um servidor dentro do seu intervalo mínimo (action_cooldown).".to_owned(),
            (Lang::Sv, OverBudget::RunsPerHour(n)) => format!("{n} körningar startade den senaste timmen, det mesta budgeten tillåter (action_runs_per_hour)."),
            (Lang::Sv, OverBudget::Cooldown(_)) => "En åtgärd skulle köras igen för en server inom sin spärrtid (action_cooldown).".to_owned(),
            (Lang::Hi, OverBudget::RunsPerHour(n)) => format!("पिछले एक घंटे में {n} बार क्रियाएँ चलीं, बजट की सीमा यही है (action_runs_per_hour)।"),
            (Lang::Hi, OverBudget::Cooldown(_)) => "एक क्रिया को किसी सर्वर के लिए उसकी प्रतीक्षा अवधि के भीतर फिर चलना था (action_cooldown)।".to_owned(),
            (Lang::Ja, OverBudget::RunsPerHour(n)) => format!("直近1時間に{n}回実行され、予算の上限に達しました（action_runs_per_hour）。"),
            (Lang::Ja, OverBudget::Cooldown(_)) => "あるアクションが、クールダウン中のサーバーに対して再び実行されようとしました（action_cooldown）。".to_owned(),
        };
        let advice = match self {
            Lang::En => "No action runs until you switch them on again in Settings → Actions. Check what set them off first: a verifier, a script or the panel itself may be at fault.",
            Lang::Es => "Ninguna acción se ejecuta hasta que las vuelvas a activar en Configuración → Acciones. Revisa antes qué las disparó: un verificador, un script o el propio panel pueden fallar.",
            Lang::Pt => "Nenhuma ação roda até você reativá-las em Configurações → Ações. Verifique antes o que as disparou: um verificador, um script ou o próprio painel podem estar com falha.",
            Lang::Sv => "Inga åtgärder körs förrän du slår på dem igen under Inställningar → Åtgärder. Kontrollera först vad som utlöste dem: en kontrollserver, ett skript eller panelen själv kan vara felet.",
            Lang::Hi => "जब तक आप सेटिंग्स → क्रियाएँ में इन्हें फिर से चालू नहीं करते, कोई क्रिया नहीं चलेगी। पहले जाँचें कि इन्हें किसने चलाया: कोई जाँचकर्ता, स्क्रिप्ट या पैनल ख़ुद गड़बड़ हो सकता है।",
            Lang::Ja => "設定 → アクション で再び有効にするまで、アクションは実行されません。先に原因を確認してください。検証サーバー、スクリプト、またはパネル自体に問題がある可能性があります。",
        };
        Notice {
            subject: subject.to_owned(),
            body: format!("{why}\n\n{at}\n\n{advice}\n"),
        }
    }

    /// The message that a connected panel stopped answering: meshwatch
    /// cannot apply its rotation in `panel` (`connector`) since `at`, for
    /// `error` (never the token).
    pub fn connector_failed_notice(
        self,
        connector: &str,
        panel: &str,
        error: &str,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Notice {
        let at = at.format("%Y-%m-%d %H:%M UTC");
        let (subject, what, advice) = match self {
            Lang::En => (
                format!("meshwatch: the connected panel {connector} is not answering"),
                format!("meshwatch cannot apply its rotation in {panel} ({connector}): {error}."),
                "Until it can, that panel's hosts stay as they are: servers out of rotation are not hidden there. meshwatch keeps trying and tells you once per outage.",
            ),
            Lang::Es => (
                format!("meshwatch: el panel conectado {connector} no responde"),
                format!("meshwatch no puede aplicar su rotación en {panel} ({connector}): {error}."),
                "Mientras tanto, los hosts de ese panel se quedan como están: los servidores fuera de rotación no se ocultan allí. meshwatch sigue intentándolo y avisa una vez por caída.",
            ),
            Lang::Pt => (
                format!("meshwatch: o painel conectado {connector} não responde"),
                format!("O meshwatch não consegue aplicar sua rotação no {panel} ({connector}): {error}."),
                "Enquanto isso, os hosts desse painel ficam como estão: servidores fora de rotação não são ocultados lá. O meshwatch continua tentando e avisa uma vez por queda.",
            ),
            Lang::Sv => (
                format!("meshwatch: den anslutna panelen {connector} svarar inte"),
                format!("meshwatch kan inte tillämpa sin rotation i {panel} ({connector}): {error}."),
                "Till dess ligger panelens värdar kvar som de är: servrar ur rotation döljs inte där. meshwatch fortsätter att försöka och säger till en gång per avbrott.",
            ),
            Lang::Hi => (
                format!("meshwatch: जुड़ा हुआ पैनल {connector} जवाब नहीं दे रहा"),
                format!("meshwatch {panel} ({connector}) में अपना रोटेशन लागू नहीं कर पा रहा: {error}।"),
                "तब तक उस पैनल के होस्ट जैसे हैं वैसे ही रहेंगे: रोटेशन से बाहर के सर्वर वहाँ छिपाए नहीं जाएँगे। meshwatch कोशिश करता रहेगा और हर रुकावट पर एक बार बताएगा।",
            ),
            Lang::Ja => (
                format!("meshwatch: 接続パネル {connector} が応答しません"),
                format!("meshwatch は {panel}（{connector}） にローテーションを反映できません：{error}。"),
                "反映できるまで、そのパネルのホストはそのままです。ローテーション外のサーバーはそこでは非表示になりません。meshwatch は再試行を続け、障害ごとに一度だけお知らせします。",
            ),
        };
        Notice {
            subject,
            body: format!("{what}\n\n{at}\n\n{advice}\n"),
        }
    }

    /// One message for many servers whose blocks started (or cleared) in
    /// the same moment as most of the fleet left (or returned to)
    /// rotation: `moved` of `fleet` servers moved, and `subjects` are the
    /// per-server messages it stands for.
    pub fn fleet_wide_notice(
        self,
        event: BlockEvent,
        moved: usize,
        fleet: usize,
        subjects: &[String],
    ) -> Notice {
        use BlockEvent::*;
        let one = |n: usize| self.is_one(n as u64);
        let (moved_one, fleet_one, count_one) = (one(moved), one(fleet), one(subjects.len()));
        let (moved, fleet, count) = (
            self.number(moved as u64),
            self.number(fleet as u64),
            self.number(subjects.len() as u64),
        );
        // "{moved} of {fleet} servers": the noun follows the fleet.
        let servers = match (self, fleet_one) {
            (Lang::En, true) => "server",
            (Lang::En, false) => "servers",
            (Lang::Es | Lang::Pt, true) => "servidor",
            (Lang::Es | Lang::Pt, false) => "servidores",
            (Lang::Sv, true) => "server",
            (Lang::Sv, false) => "servrar",
            (Lang::Hi, _) => "सर्वर",
            (Lang::Ja, _) => "台",
        };
        // What they did; the verb follows how many moved.
        let did = match (self, event, moved_one) {
            (Lang::En, Started, _) => "left rotation",
            (Lang::En, Cleared, _) => "returned to rotation",
            (Lang::Es, Started, true) => "salió de la rotación",
            (Lang::Es, Started, false) => "salieron de la rotación",
            (Lang::Es, Cleared, true) => "volvió a la rotación",
            (Lang::Es, Cleared, false) => "volvieron a la rotación",
            (Lang::Pt, Started, true) => "saiu de rotação",
            (Lang::Pt, Started, false) => "saíram de rotação",
            (Lang::Pt, Cleared, true) => "voltou à rotação",
            (Lang::Pt, Cleared, false) => "voltaram à rotação",
            (Lang::Sv, Started, _) => "lämnade rotationen",
            (Lang::Sv, Cleared, _) => "återvände till rotationen",
            (Lang::Hi, Started, true) => "रोटेशन से बाहर हुआ",
            (Lang::Hi, Started, false) => "रोटेशन से बाहर हुए",
            (Lang::Hi, Cleared, true) => "रोटेशन में लौटा",
            (Lang::Hi, Cleared, false) => "रोटेशन में लौटे",
            (Lang::Ja, Started, _) => "ローテーション外になりました",
            (Lang::Ja, Cleared, _) => "ローテーションに戻りました",
        };
        let incidents = match (self, count_one) {
            (Lang::En, true) => format!("{count} separate incident"),
            (Lang::En, false) => format!("{count} separate incidents"),
            (Lang::Es, true) => format!("{count} incidente distinto"),
            (Lang::Es, false) => format!("{count} incidentes distintos"),
            (Lang::Pt, true) => format!("{count} incidente separado"),
            (Lang::Pt, false) => format!("{count} incidentes separados"),
            (Lang::Sv, true) => format!("{count} separat incident"),
            (Lang::Sv, false) => format!("{count} separata incidenter"),
            (Lang::Hi, true) => format!("{count} अलग इंसिडेंट"),
            (Lang::Hi, false) => format!("{count} अलग-अलग इंसिडेंट"),
            (Lang::Ja, _) => format!("{count}件の個別の障害"),
        };
        let (subject, headline) = match self {
            Lang::En => (
                format!("meshwatch: {moved} of {fleet} {servers} {did} at once"),
                format!("{moved} of your {fleet} {servers} {did} at the same moment: more likely a problem of your own network or of the panel's view than {incidents}."),
            ),
            Lang::Es => (
                format!("meshwatch: {moved} de {fleet} {servers} {did} a la vez"),
                format!("{moved} de tus {fleet} {servers} {did} en el mismo momento: es más probable un problema de tu propia red o de la vista del panel que {incidents}."),
            ),
            Lang::Pt => (
                format!("meshwatch: {moved} de {fleet} {servers} {did} ao mesmo tempo"),
                format!("{moved} dos seus {fleet} {servers} {did} no mesmo momento: é mais provável um problema da sua própria rede ou da visão do painel do que {incidents}."),
            ),
            Lang::Sv => (
                format!("meshwatch: {moved} av {fleet} {servers} {did} samtidigt"),
                format!("{moved} av dina {fleet} {servers} {did} i samma ögonblick: troligare ett problem i ditt eget nät eller i panelens vy än {incidents}."),
            ),
            Lang::Hi => (
                format!("meshwatch: {fleet} में से {moved} {servers} एक साथ {did}"),
                format!("आपके {fleet} में से {moved} {servers} एक ही समय पर {did}: {incidents} की तुलना में आपके अपने नेटवर्क या पैनल के नज़रिए में समस्या होने की संभावना अधिक है।"),
            ),
            Lang::Ja => (
                format!("meshwatch: {fleet}{servers}中{moved}台のサーバーが同時に{did}"),
                format!("{fleet}{servers}中{moved}台のサーバーが同時に{did}。{incidents}というより、お使いのネットワークまたはパネル側の問題である可能性が高いです。"),
            ),
        };
        let mut body = vec![headline, String::new()];
        body.extend(subjects.iter().map(|s| format!("- {s}")));
        Notice {
            subject,
            body: lines(&body),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshwatch::ServerId;

    fn server(id: &str, name: &str, country: &str) -> ServerRef {
        ServerRef {
            id: ServerId::parse(id).expect("slug"),
            name: name.to_owned(),
            country: country.to_owned(),
        }
    }

    fn blocked() -> Incident {
        Incident {
            event: BlockEvent::Started,
            server: server("de-1", "Frankfurt 1", "DE"),
            addresses: vec!["203.0.113.10:443".into(), "203.0.113.10:8443".into()],
            verifiers: vec![server("ru-1", "Moscow 1", "RU")],
            at: DateTime::parse_from_rfc3339("2026-12-02T10:04:00Z")
                .map(|t| t.with_timezone(&Utc))
                .expect("time"),
            blocked_on: Vec::new(),
            still_reached_from: Vec::new(),
            blocks: Vec::new(),
            snis: Vec::new(),
        }
    }

    fn cleared() -> Incident {
        Incident {
            event: BlockEvent::Cleared,
            ..blocked()
        }
    }

    #[test]
    fn the_english_block_message_reads_line_by_line() {
        let notice = Lang::En.incident_notice(&blocked());
        assert_eq!(
            notice.subject,
            "meshwatch: address of Frankfurt 1 (de-1) is blocked"
        );
        assert_eq!(
            notice.body,
            "The address of server Frankfurt 1 (de-1) is blocked as seen by your verifiers.\n\
             \n\
             Server: Frankfurt 1 (de-1)\n\
             Country: DE\n\
             Addresses: 203.0.113.10:443, 203.0.113.10:8443\n\
             Verifiers: Moscow 1 (ru-1, RU)\n\
             Blocked since: 2026-12-02 10:04 UTC\n\
             \n\
             Its entry points are no longer served to users while its route has other servers in rotation.\n\
             Advice: change this server's IP address. meshwatch notices by itself when the address is reachable again.\n"
        );
    }

    #[test]
    fn the_english_clearing_message_says_when_and_that_nothing_is_needed() {
        let notice = Lang::En.incident_notice(&cleared());
        assert_eq!(
            notice.subject,
            "meshwatch: address of Frankfurt 1 (de-1) is reachable again"
        );
        let lines: Vec<&str> = notice.body.lines().collect();
        assert_eq!(
            lines[0],
            "The block on server Frankfurt 1 (de-1) has cleared."
        );
        assert!(lines.contains(&"Cleared at: 2026-12-02 10:04 UTC"));
        assert!(lines.contains(&"Verifiers: Moscow 1 (ru-1, RU)"));
        assert_eq!(lines.last(), Some(&"No action is needed."));
    }

    #[test]
    fn the_spanish_block_message_names_everything_in_spanish() {
        let notice = Lang::Es.incident_notice(&blocked());
        assert_eq!(
            notice.subject,
            "meshwatch: la dirección de Frankfurt 1 (de-1) está bloqueada"
        );
        let lines: Vec<&str> = notice.body.lines().collect();
        for line in [
            "Servidor: Frankfurt 1 (de-1)",
            "País: DE",
            "Direcciones: 203.0.113.10:443, 203.0.113.10:8443",
            "Verificadores: Moscow 1 (ru-1, RU)",
            "Bloqueada desde: 2026-12-02 10:04 UTC",
        ] {
            assert!(lines.contains(&line), "{line:?} missing:\n{}", notice.body);
        }
        assert!(notice
            .body
            .contains("cambia la dirección IP de este servidor"));
    }

    #[test]
    fn the_japanese_block_message_lists_with_the_japanese_separator() {
        let notice = Lang::Ja.incident_notice(&blocked());
        assert!(notice
            .body
            .lines()
            .any(|l| l == "アドレス：203.0.113.10:443、203.0.113.10:8443"));
        assert!(notice.body.contains("IP アドレスを変更してください"));
    }

    #[test]
    fn every_language_has_real_line_breaks_and_every_fact() {
        for lang in Lang::ALL {
            for incident in [blocked(), cleared()] {
                let notice = lang.incident_notice(&incident);
                let text = format!("{}\n{}", notice.subject, notice.body);
                assert!(!text.contains('\\'), "{lang:?}: a backslash in {text}");
                assert!(!notice.subject.contains('\n'), "{lang:?}: one-line subject");
                assert_eq!(
                    notice.body.lines().count(),
                    10,
                    "{lang:?}: the template's ten lines\n{}",
                    notice.body
                );
                assert!(
                    notice.body.lines().all(|l| l == l.trim()),
                    "{lang:?}: no indentation\n{}",
                    notice.body
                );
                for fact in [
                    "Frankfurt 1",
                    "de-1",
                    "DE",
                    "203.0.113.10:443",
                    "Moscow 1 (ru-1, RU)",
                    "2026-12-02 10:04 UTC",
                ] {
                    assert!(notice.body.contains(fact), "{lang:?}: {fact} missing");
                }
                if lang != Lang::En {
                    let english = Lang::En.incident_notice(&incident);
                    assert_ne!(notice.subject, english.subject, "{lang:?}");
                    // Eight lines have words; "Server: " is Swedish too.
                    let translated = notice
                        .body
                        .lines()
                        .zip(english.body.lines())
                        .filter(|(line, en)| line != en)
                        .count();
                    assert!(
                        translated >= 7,
                        "{lang:?}: English left in\n{}",
                        notice.body
                    );
                }
            }
        }
    }

    #[test]
    fn no_verifier_and_no_address_read_as_none() {
        let mut incident = blocked();
        incident.addresses.clear();
        incident.verifiers.clear();
        let body = Lang::En.incident_notice(&incident).body;
        assert!(body.contains("\nAddresses: none\n") && body.contains("\nVerifiers: none\n"));
    }

    #[test]
    fn a_fleet_wide_message_lists_the_messages_it_folds() {
        let subjects = vec![
            "meshwatch: address of A (a) is blocked".to_owned(),
            "meshwatch: address of B (b) is blocked".to_owned(),
        ];
        let notice = Lang::En.fleet_wide_notice(BlockEvent::Started, 4, 6, &subjects);
        assert_eq!(
            notice.subject,
            "meshwatch: 4 of 6 servers left rotation at once"
        );
        assert!(notice
            .body
            .ends_with("\n\n- meshwatch: address of A (a) is blocked\n- meshwatch: address of B (b) is blocked\n"));
        for lang in Lang::ALL {
            for event in [BlockEvent::Started, BlockEvent::Cleared] {
                let notice = lang.fleet_wide_notice(event, 4, 6, &subjects);
                assert!(
                    !notice.body.contains('\\')
                        && notice.body.contains("- meshwatch: address of B")
                );
                assert!(notice.subject.contains('4') && notice.subject.contains('6'));
            }
        }
    }
}
