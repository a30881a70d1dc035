//! A refusal of the panel's checks as the panel's forms show it: the API's
//! error `code` (docs/API.md, "Error codes") says what was refused, in the
//! page's language; the check's own words (English, naming the field or
//! the limit) follow where the code alone does not say what to fix.

use super::Lang;
use serde::{Deserialize, Serialize};

/// A refusal: its API code and the check's own words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub code: String,
    pub detail: String,
}

impl Refusal {
    pub fn new(code: impl Into<String>, detail: impl Into<String>) -> Self {
        Refusal {
            code: code.into(),
            detail: detail.into(),
        }
    }
}

/// The check's own words, as the API's `message` gives them.
impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

/// Whether the sentence of a code is followed by the check's words.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    Kept,
    Dropped,
}

/// The code's sentence in es, pt, sv, hi, ja (English says the check's
/// words as they are), and whether the check's words follow it.
fn sentence(code: &str) -> Option<([&'static str; 5], Detail)> {
    use Detail::{Dropped, Kept};
    Some(match code {
        "unknown_id" => ([
            "El identificador no corresponde a nada de la flota.",
            "O identificador não corresponde a nada da frota.",
            "Id:t motsvarar inget i flottan.",
            "यह आईडी फ़्लीट में किसी से मेल नहीं खाती।",
            "そのIDはフリートのどれにも該当しません。",
        ], Kept),
        "duplicate_id" => ([
            "El mismo identificador aparece dos veces.",
            "O mesmo identificador aparece duas vezes.",
            "Samma id förekommer två gånger.",
            "एक ही आईडी दो बार आई है।",
            "同じIDが2回使われています。",
        ], Kept),
        "invalid_port" => ([
            "Un puerto va de 1 a 65535.",
            "Uma porta vai de 1 a 65535.",
            "En port är 1 till 65535.",
            "पोर्ट 1 से 65535 के बीच होता है।",
            "ポートは1〜65535で指定してください。",
        ], Kept),
        "no_target" => ([
            "La ventana no indica ningún servidor ni ninguna ruta.",
            "A janela não indica nenhum servidor nem rota.",
            "Fönstret anger ingen server och ingen rutt.",
            "विंडो में कोई सर्वर या रूट नहीं चुना गया है।",
            "ウィンドウにサーバーもルートも指定されていません。",
        ], Dropped),
        "too_many_targets" => ([
            "La ventana indica más destinos de los permitidos.",
            "A janela indica mais alvos do que o permitido.",
            "Fönstret anger fler mål än tillåtet.",
            "विंडो में अनुमति से अधिक लक्ष्य हैं।",
            "ウィンドウの対象が上限を超えています。",
        ], Kept),
        "ends_before_start" => ([
            "La ventana termina antes de empezar.",
            "A janela termina antes de começar.",
            "Fönstret slutar innan det börjar.",
            "विंडो शुरू होने से पहले खत्म हो रही है।",
            "ウィンドウの終了が開始より前です。",
        ], Dropped),
        "window_too_long" => ([
            "La ventana es más larga de lo permitido.",
            "A janela é mais longa do que o permitido.",
            "Fönstret är längre än tillåtet.",
            "विंडो अनुमति से अधिक लंबी है।",
            "ウィンドウが上限より長すぎます。",
        ], Kept),
        "ends_in_past" => ([
            "La ventana ya ha terminado.",
            "A janela já terminou.",
            "Fönstret har redan slutat.",
            "विंडो पहले ही खत्म हो चुकी है।",
            "ウィンドウはすでに終了しています。",
        ], Dropped),
        "note_too_long" => ([
            "La nota es más larga de lo permitido.",
            "A nota é mais longa do que o permitido.",
            "Anteckningen är längre än tillåtet.",
            "नोट अनुमति से अधिक लंबा है।",
            "メモが上限より長すぎます。",
        ], Kept),
        "invalid_note" => ([
            "La nota contiene un carácter de control.",
            "A nota contém um caractere de controle.",
            "Anteckningen innehåller ett styrtecken.",
            "नोट में एक नियंत्रण वर्ण है।",
            "メモに制御文字が含まれています。",
        ], Dropped),
        "too_many_windows" => ([
            "El panel ya guarda todas las ventanas que admite: cancela alguna antes.",
            "O painel já guarda todas as janelas que admite: cancele alguma antes.",
            "Panelen har redan så många fönster den tillåter: avbryt ett först.",
            "पैनल में पहले से अधिकतम विंडो हैं: पहले कोई एक रद्द करें।",
            "パネルが保持できるウィンドウ数の上限に達しています。先にどれかを取り消してください。",
        ], Dropped),
        "unknown_server" => ([
            "Ese servidor no existe.",
            "Esse servidor não existe.",
            "Den servern finns inte.",
            "वह सर्वर मौजूद नहीं है।",
            "そのサーバーは存在しません。",
        ], Kept),
        "unknown_route" => ([
            "Esa ruta no existe.",
            "Essa rota não existe.",
            "Den rutten finns inte.",
            "वह रूट मौजूद नहीं है।",
            "そのルートは存在しません。",
        ], Kept),
        "invalid_name" => ([
            "El nombre debe tener entre 1 y 64 caracteres, sin caracteres de control.",
            "O nome deve ter de 1 a 64 caracteres, sem caracteres de controle.",
            "Namnet ska vara 1 till 64 tecken utan styrtecken.",
            "नाम 1 से 64 वर्णों का हो, बिना नियंत्रण वर्णों के।",
            "名前は制御文字を含まない1〜64文字にしてください。",
        ], Dropped),
        "command_or_http" => ([
            "Indica un comando o una llamada HTTP, no ambos.",
            "Informe um comando ou uma chamada HTTP, não ambos.",
            "Ange ett kommando eller ett HTTP-anrop, inte båda.",
            "या तो कमांड दें या HTTP कॉल, दोनों नहीं।",
            "コマンドか HTTP 呼び出しのどちらか一方を指定してください。",
        ], Dropped),
        "invalid_command" => ([
            "El comando no es válido.",
            "O comando não é válido.",
            "Kommandot är inte giltigt.",
            "कमांड मान्य नहीं है।",
            "コマンドが正しくありません。",
        ], Kept),
        "invalid_http" => ([
            "La llamada HTTP no es válida.",
            "A chamada HTTP não é válida.",
            "HTTP-anropet är inte giltigt.",
            "HTTP कॉल मान्य नहीं है।",
            "HTTP 呼び出しが正しくありません。",
        ], Kept),
        "invalid_after_minutes" => ([
            "La espera es más larga de lo permitido.",
            "A espera é mais longa do que o permitido.",
            "Väntetiden är längre än tillåtet.",
            "प्रतीक्षा अनुमति से अधिक लंबी है।",
            "待ち時間が上限より長すぎます。",
        ], Kept),
        "command_actions_off" => ([
            "Este panel no permite acciones con comando.",
            "Este painel não permite ações com comando.",
            "Den här panelen tillåter inga kommandoåtgärder.",
            "यह पैनल कमांड वाली क्रियाओं की अनुमति नहीं देता।",
            "このパネルではコマンドのアクションは使えません。",
        ], Dropped),
        "command_not_allowed" => ([
            "Ese comando no está en la lista de comandos permitidos de este host.",
            "Esse comando não está na lista de comandos permitidos deste host.",
            "Kommandot finns inte i värdens lista över tillåtna kommandon.",
            "यह कमांड इस होस्ट की अनुमत कमांड सूची में नहीं है।",
            "そのコマンドはこのホストで許可されたコマンドの一覧にありません。",
        ], Kept),
        "private_target" => ([
            "La llamada HTTP apunta a una dirección privada o reservada.",
            "A chamada HTTP aponta para um endereço privado ou reservado.",
            "HTTP-anropet går till en privat eller reserverad adress.",
            "HTTP कॉल किसी निजी या आरक्षित पते पर जा रही है।",
            "HTTP 呼び出しの宛先がプライベートまたは予約済みのアドレスです。",
        ], Kept),
        "invalid_kinds" => ([
            "Los tipos de bloqueo solo valen para el evento «bloqueado» y no pueden quedar vacíos.",
            "Os tipos de bloqueio só valem para o evento “bloqueado” e não podem ficar vazios.",
            "Blockeringstyper gäller bara händelsen ”blockerad” och får inte vara tomma.",
            "ब्लॉक के प्रकार सिर्फ़ “ब्लॉक” घटना पर लागू होते हैं और खाली नहीं हो सकते।",
            "ブロックの種類は「ブロック」イベントにのみ指定でき、空にはできません。",
        ], Dropped),
        "invalid_budget" => ([
            "El presupuesto de acciones está fuera de rango.",
            "O orçamento de ações está fora do intervalo.",
            "Åtgärdsbudgeten ligger utanför sitt intervall.",
            "क्रियाओं का बजट सीमा से बाहर है।",
            "アクションの予算が範囲外です。",
        ], Kept),
        "name_taken" => ([
            "Ya hay una acción con ese nombre.",
            "Já existe uma ação com esse nome.",
            "Det finns redan en åtgärd med det namnet.",
            "इस नाम की क्रिया पहले से मौजूद है।",
            "その名前のアクションはすでにあります。",
        ], Dropped),
        "too_many_actions" => ([
            "El panel ya guarda todas las acciones que admite.",
            "O painel já guarda todas as ações que admite.",
            "Panelen har redan så många åtgärder den tillåter.",
            "पैनल में पहले से अधिकतम क्रियाएँ हैं।",
            "パネルが保持できるアクション数の上限に達しています。",
        ], Dropped),
        "invalid_setting" => ([
            "Un parámetro está fuera de rango.",
            "Um parâmetro está fora do intervalo.",
            "En inställning ligger utanför sitt intervall.",
            "एक सेटिंग सीमा से बाहर है।",
            "設定値が範囲外です。",
        ], Kept),
        "invalid_network" => ([
            "La red del verificador no es válida.",
            "A rede do verificador não é válida.",
            "Kontrollserverns nät är inte giltigt.",
            "जाँचकर्ता का नेटवर्क मान्य नहीं है।",
            "検証サーバーのネットワークが正しくありません。",
        ], Kept),
        "invalid_controls" => ([
            "El SNI o las direcciones de control no son válidos.",
            "O SNI ou os endereços de controle não são válidos.",
            "Kontroll-SNI:t eller kontrolladresserna är inte giltiga.",
            "नियंत्रण SNI या नियंत्रण पते मान्य नहीं हैं।",
            "コントロール用の SNI またはアドレスが正しくありません。",
        ], Kept),
        "invalid_kind" => ([
            "meshwatch no conoce ese tipo de panel.",
            "O meshwatch não conhece esse tipo de painel.",
            "meshwatch känner inte till den paneltypen.",
            "meshwatch इस प्रकार के पैनल को नहीं जानता।",
            "meshwatch はその種類のパネルに対応していません。",
        ], Dropped),
        "invalid_url" => ([
            "La dirección del panel no es una URL http(s) válida.",
            "O endereço do painel não é uma URL http(s) válida.",
            "Panelens adress är ingen giltig http(s)-URL.",
            "पैनल का पता मान्य http(s) URL नहीं है।",
            "パネルのアドレスが正しい http(s) の URL ではありません。",
        ], Dropped),
        "invalid_token" => ([
            "La credencial del panel está vacía o mal formada.",
            "A credencial do painel está vazia ou malformada.",
            "Panelens inloggningsuppgift är tom eller felformad.",
            "पैनल का क्रेडेंशियल खाली है या गलत रूप में है।",
            "パネルの認証情報が空か、形式が正しくありません。",
        ], Kept),
        "tag_unsupported" => ([
            "Los hosts de ese tipo de panel no llevan etiquetas.",
            "Os hosts desse tipo de painel não têm tags.",
            "Den paneltypens värdar har inga taggar.",
            "इस प्रकार के पैनल के होस्ट पर टैग नहीं होते।",
            "その種類のパネルのホストにはタグがありません。",
        ], Dropped),
        "invalid_tag" => ([
            "La etiqueta no es válida.",
            "A tag não é válida.",
            "Taggen är inte giltig.",
            "टैग मान्य नहीं है।",
            "タグが正しくありません。",
        ], Kept),
        "invalid_id" => ([
            "El nombre no es un identificador válido.",
            "O nome não é um identificador válido.",
            "Namnet är ingen giltig identifierare.",
            "नाम कोई मान्य पहचानकर्ता नहीं है।",
            "名前が正しい識別子ではありません。",
        ], Kept),
        "too_many_connectors" => ([
            "El panel ya guarda todas las conexiones que admite.",
            "O painel já guarda todas as conexões que admite.",
            "Panelen har redan så många anslutningar den tillåter.",
            "पैनल में पहले से अधिकतम कनेक्शन हैं।",
            "パネルが保持できる接続数の上限に達しています。",
        ], Dropped),
        "connector_in_use" => ([
            "La conexión aún tiene hosts que meshwatch desactivó.",
            "A conexão ainda tem hosts que o meshwatch desativou.",
            "Anslutningen har fortfarande värdar som meshwatch stängde av.",
            "इस कनेक्शन में अब भी वे होस्ट हैं जिन्हें meshwatch ने बंद किया था।",
            "この接続には meshwatch が無効にしたホストがまだあります。",
        ], Dropped),
        "connector_removing" => ([
            "La conexión se está eliminando.",
            "A conexão está sendo removida.",
            "Anslutningen håller på att tas bort.",
            "यह कनेक्शन हटाया जा रहा है।",
            "この接続は削除中です。",
        ], Dropped),
        "connector_removed" => ([
            "La conexión se eliminó mientras tanto.",
            "A conexão foi removida nesse meio-tempo.",
            "Anslutningen togs bort under tiden.",
            "इस बीच यह कनेक्शन हटा दिया गया।",
            "この接続はその間に削除されました。",
        ], Dropped),
        "panel_error" => ([
            "El panel conectado respondió con un error.",
            "O painel conectado respondeu com um erro.",
            "Den anslutna panelen svarade med ett fel.",
            "जुड़े हुए पैनल ने एक त्रुटि लौटाई।",
            "接続先のパネルがエラーを返しました。",
        ], Kept),
        "token_conflict" => ([
            "Ese token de agente ya es de otro servidor.",
            "Esse token de agente já é de outro servidor.",
            "Den agenttoken tillhör redan en annan server.",
            "यह एजेंट टोकन पहले से किसी दूसरे सर्वर का है।",
            "そのエージェントトークンはすでに別のサーバーのものです。",
        ], Dropped),
        "entry_point_conflict" => ([
            "Ese punto de entrada ya es de otro servidor.",
            "Esse ponto de entrada já é de outro servidor.",
            "Den ingångspunkten tillhör redan en annan server.",
            "यह प्रवेश बिंदु पहले से किसी दूसरे सर्वर का है।",
            "その接続ポイントはすでに別のサーバーのものです。",
        ], Kept),
        "invalid_field" | "invalid_document" => ([
            "Un campo no es válido.",
            "Um campo não é válido.",
            "Ett fält är inte giltigt.",
            "एक फ़ील्ड मान्य नहीं है।",
            "項目が正しくありません。",
        ], Kept),
        _ => return None,
    })
}

impl Lang {
    /// The refusal in this language: the sentence of its code, then the
    /// check's own words where the code alone does not say what to fix;
    /// the check's words alone in English or for a code without one.
    pub fn refusal(self, refusal: &Refusal) -> String {
        let index = match self {
            Lang::En => return refusal.detail.clone(),
            Lang::Es => 0,
            Lang::Pt => 1,
            Lang::Sv => 2,
            Lang::Hi => 3,
            Lang::Ja => 4,
        };
        match sentence(&refusal.code) {
            Some((words, Detail::Dropped)) => words[index].to_owned(),
            Some((words, Detail::Kept)) if self == Lang::Ja => {
                format!("{}（{}）", words[index], refusal.detail)
            }
            Some((words, Detail::Kept)) => format!("{} ({})", words[index], refusal.detail),
            None => refusal.detail.clone(),
        }
    }
}

/// A refusal of each kind with the check's words, for the pins.
#[cfg(test)]
pub(super) fn samples(lang: Lang) -> Vec<(String, String)> {
    [
        "window_too_long",
        "ends_before_start",
        "invalid_setting",
        "no_such_code",
    ]
    .into_iter()
    .map(|code| {
        let refusal = Refusal::new(code, "the check's words");
        (format!("refusal {code}"), lang.refusal(&refusal))
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form refusal the panel can show has its sentence.
    #[test]
    fn the_codes_of_the_panels_forms_have_a_sentence() {
        for code in [
            "no_target",
            "too_many_targets",
            "ends_before_start",
            "window_too_long",
            "ends_in_past",
            "note_too_long",
            "invalid_note",
            "too_many_windows",
            "invalid_name",
            "command_or_http",
            "invalid_command",
            "invalid_http",
            "invalid_after_minutes",
            "command_actions_off",
            "command_not_allowed",
            "private_target",
            "invalid_kinds",
            "invalid_budget",
            "name_taken",
            "too_many_actions",
            "invalid_setting",
            "invalid_network",
            "invalid_controls",
            "invalid_kind",
            "invalid_url",
            "invalid_token",
            "tag_unsupported",
            "invalid_tag",
            "invalid_id",
            "too_many_connectors",
            "connector_in_use",
            "connector_removing",
            "connector_removed",
            "panel_error",
            // Through a connected panel's import (its fleet's checks).
            "unknown_id",
            "duplicate_id",
            "invalid_port",
        ] {
            assert!(sentence(code).is_some(), "{code}");
        }
    }

    #[test]
    fn english_keeps_the_checks_words_and_others_add_them_where_needed() {
        let long = Refusal::new("window_too_long", "a window lasts at most 7 days");
        assert_eq!(Lang::En.refusal(&long), "a window lasts at most 7 days");
        assert_eq!(
            Lang::Es.refusal(&long),
            "La ventana es más larga de lo permitido. (a window lasts at most 7 days)"
        );
        assert_eq!(
            Lang::Ja.refusal(&long),
            "ウィンドウが上限より長すぎます。（a window lasts at most 7 days）"
        );
        let order = Refusal::new("ends_before_start", "end before start");
        assert_eq!(
            Lang::Sv.refusal(&order),
            "Fönstret slutar innan det börjar."
        );
        let unknown = Refusal::new("no_such_code", "as written");
        assert_eq!(Lang::Hi.refusal(&unknown), "as written");
    }
}
