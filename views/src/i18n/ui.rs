//! The panel's own words in the six languages: frame and navigation,
//! headings, table headers, labels, buttons, help texts, empty states and
//! notes. Fixed phrases are [`Ui`] keys looked up with [`Lang::ui`];
//! phrases with values in them are methods on [`Lang`] taking those values.
//!
//! Each key lists its six translations in [`Lang::ALL`] order
//! (en, es, pt, sv, hi, ja). The English is the panel's reference wording:
//! tests and the API match it, so it changes only on purpose.

use super::Lang;
use crate::views::ServerRef;
use chrono::{DateTime, Utc};
use meshwatch::balance::Placement;

/// What the user card says next to one of the user's servers: a headline
/// and, when it needs one, the line under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacementWords {
    pub headline: String,
    pub detail: Option<String>,
}

/// Declares [`Ui`], [`Ui::ALL`] and [`Lang::ui`] from one table, so a key
/// cannot exist without a text in every language.
macro_rules! catalogue {
    ($(
        $(#[$meta:meta])*
        $key:ident => [$en:expr, $es:expr, $pt:expr, $sv:expr, $hi:expr, $ja:expr $(,)?],
    )*) => {
        /// A fixed phrase of the panel (see [`Lang::ui`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Ui {
            $($(#[$meta])* $key,)*
        }

        impl Ui {
            /// Every key, in declaration order.
            pub const ALL: &'static [Ui] = &[$(Ui::$key,)*];
        }

        /// Every key's six texts, in key order: one static table, so a
        /// lookup is an index (a `match` here cost 14 KB of WASM code).
        const TEXTS: &[[&str; 6]] = &[$([$en, $es, $pt, $sv, $hi, $ja],)*];

        impl Lang {
            /// A fixed phrase of the panel in this language.
            pub fn ui(self, key: Ui) -> &'static str {
                TEXTS[key as usize][self.index()]
            }
        }
    };
}

catalogue! {
    // ── Frame, navigation, words shared by several pages ──────────────
    /// `aria-label` of the main navigation.
    MainNav => ["Main", "Principal", "Principal", "Huvudmeny", "मुख्य", "メイン"],
    Overview => ["Overview", "Resumen", "Visão geral", "Översikt", "सारांश", "概要"],
    Servers => ["Servers", "Servidores", "Servidores", "Servrar", "सर्वर", "サーバー"],
    Users => ["Users", "Usuarios", "Usuários", "Användare", "उपयोगकर्ता", "ユーザー"],
    Routes => ["Routes", "Rutas", "Rotas", "Rutter", "रूट", "ルート"],
    Mesh => ["Mesh", "Red mesh", "Rede mesh", "Meshnät", "मेश", "メッシュ"],
    Notifications => ["Notifications", "Notificaciones", "Notificações", "Aviseringar", "सूचनाएँ", "通知"],
    Settings => ["Settings", "Configuración", "Configurações", "Inställningar", "सेटिंग्स", "設定"],
    /// The live-updates indicator, connected.
    Live => ["Live", "En vivo", "Ao vivo", "I realtid", "लाइव", "ライブ"],
    /// The live-updates indicator, disconnected.
    NotLive => ["Not live", "Sin conexión en vivo", "Sem conexão ao vivo", "Inte i realtid", "लाइव नहीं", "ライブ接続なし"],
    /// Precedes the operator's name (shown in bold after it).
    SignedInAs => ["Signed in as ", "Sesión iniciada como ", "Conectado como ", "Inloggad som ", "साइन इन उपयोगकर्ता: ", "サインイン中："],
    /// The label of the language switcher.
    Language => ["Language", "Idioma", "Idioma", "Språk", "भाषा", "言語"],
    ChangeLanguage => ["Change language", "Cambiar idioma", "Mudar idioma", "Byt språk", "भाषा बदलें", "言語を変更"],
    SignOut => ["Sign out", "Cerrar sesión", "Sair", "Logga ut", "साइन आउट करें", "サインアウト"],
    SignIn => ["Sign in", "Iniciar sesión", "Entrar", "Logga in", "साइन इन करें", "サインイン"],
    /// `aria-label` of the breadcrumb navigation.
    Breadcrumb => ["Breadcrumb", "Migas de pan", "Trilha de navegação", "Brödsmulor", "नेविगेशन पथ", "パンくずリスト"],
    ProvisionFleetHint => [
        "Provision your fleet with PUT /api/v1/fleet.",
        "Da de alta tu flota con PUT /api/v1/fleet.",
        "Provisione sua frota com PUT /api/v1/fleet.",
        "Lägg upp din serverpark med PUT /api/v1/fleet.",
        "PUT /api/v1/fleet से अपने सर्वर-समूह को सेट अप करें।",
        "PUT /api/v1/fleet でフリートを登録してください。",
    ],
    NoServersYet => ["No servers yet", "Aún no hay servidores", "Ainda não há servidores", "Inga servrar än", "अभी कोई सर्वर नहीं", "サーバーはまだありません"],
    /// The verifier role (a chip next to a server).
    Verifier => ["Verifier", "Verificador", "Verificador", "Kontrollserver", "जाँचकर्ता", "検証サーバー"],
    Server => ["Server", "Servidor", "Servidor", "Server", "सर्वर", "サーバー"],
    Status => ["Status", "Estado", "Status", "Status", "स्थिति", "ステータス"],
    Country => ["Country", "País", "País", "Land", "देश", "国"],
    Route => ["Route", "Ruta", "Rota", "Rutt", "रूट", "ルート"],
    EntryPoints => ["Entry points", "Puntos de entrada", "Pontos de entrada", "Ingångspunkter", "प्रवेश बिंदु", "接続ポイント"],
    InRotation => ["In rotation", "En rotación", "Em rotação", "I rotation", "रोटेशन में", "ローテーション中"],
    OutOfRotation => ["Out of rotation", "Fuera de rotación", "Fora de rotação", "Ur rotation", "रोटेशन से बाहर", "ローテーション外"],

    // ── Sign-in ─────────────────────────────────────────────────────────
    SignInToPanel => ["Sign in to the panel", "Inicia sesión en el panel", "Entre no painel", "Logga in på panelen", "पैनल में साइन इन करें", "パネルにサインイン"],
    Username => ["Username", "Nombre de usuario", "Nome de usuário", "Användarnamn", "उपयोगकर्ता नाम", "ユーザー名"],
    Password => ["Password", "Contraseña", "Senha", "Lösenord", "पासवर्ड", "パスワード"],
    LoginLocked => [
        "Too many failed sign-ins. Wait a few minutes and try again.",
        "Demasiados intentos de inicio de sesión fallidos. Espera unos minutos y vuelve a intentarlo.",
        "Muitas tentativas de login malsucedidas. Aguarde alguns minutos e tente novamente.",
        "För många misslyckade inloggningar. Vänta några minuter och försök igen.",
        "बहुत अधिक असफल साइन-इन प्रयास। कुछ मिनट प्रतीक्षा करें और फिर से प्रयास करें।",
        "サインインの失敗が多すぎます。数分待ってから、もう一度お試しください。",
    ],
    LoginBusy => [
        "Too many sign-in attempts right now. Wait a moment and try again.",
        "Hay demasiados intentos de inicio de sesión en este momento. Espera un momento y vuelve a intentarlo.",
        "Há muitas tentativas de login neste momento. Aguarde um instante e tente novamente.",
        "För många inloggningsförsök just nu. Vänta en stund och försök igen.",
        "अभी बहुत अधिक साइन-इन प्रयास हो रहे हैं। थोड़ी देर प्रतीक्षा करें और फिर से प्रयास करें।",
        "現在サインインの試行が多すぎます。しばらく待ってから、もう一度お試しください。",
    ],
    LoginCrossSite => [
        "That sign-in came from another site and was refused.",
        "Ese inicio de sesión procedía de otro sitio y se ha rechazado.",
        "Essa tentativa de login veio de outro site e foi recusada.",
        "Inloggningen kom från en annan webbplats och avvisades.",
        "यह साइन-इन किसी दूसरी साइट से आया था, इसलिए अस्वीकार कर दिया गया।",
        "このサインインは別のサイトから送信されたため、拒否されました。",
    ],
    WrongCurrentPassword => [
        "The current password is wrong.",
        "La contraseña actual no es correcta.",
        "A senha atual está incorreta.",
        "Det nuvarande lösenordet är fel.",
        "मौजूदा पासवर्ड गलत है।",
        "現在のパスワードが違います。",
    ],
    WrongPasswordNothingChanged => [
        "Your password is wrong: nothing was changed.",
        "Tu contraseña no es correcta: no se ha cambiado nada.",
        "Sua senha está incorreta: nada foi alterado.",
        "Ditt lösenord är fel: inget har ändrats.",
        "आपका पासवर्ड गलत है: कुछ भी नहीं बदला गया।",
        "パスワードが違います。何も変更されていません。",
    ],
    NewPasswordsDiffer => [
        "The two new passwords differ.",
        "Las dos contraseñas nuevas no coinciden.",
        "As duas novas senhas são diferentes.",
        "De två nya lösenorden skiljer sig åt.",
        "दोनों नए पासवर्ड अलग-अलग हैं।",
        "2つの新しいパスワードが一致しません。",
    ],
    NewPasswordIsCurrent => [
        "The new password is the current one.",
        "La nueva contraseña es la actual.",
        "A nova senha é a atual.",
        "Det nya lösenordet är det nuvarande.",
        "नया पासवर्ड वही है जो अभी है।",
        "新しいパスワードが現在のパスワードと同じです。",
    ],
    ErrorSessionEnded => [
        "Your session has ended. Please sign in again.",
        "Tu sesión ha terminado. Vuelve a iniciar sesión.",
        "Sua sessão terminou. Faça login novamente.",
        "Din session har upphört. Logga in igen.",
        "आपका सत्र समाप्त हो गया है। कृपया फिर से साइन इन करें।",
        "セッションが終了しました。もう一度サインインしてください。",
    ],
    ErrorCrossSite => [
        "This request came from another site and was refused.",
        "Esta solicitud procedía de otro sitio y se ha rechazado.",
        "Esta solicitação veio de outro site e foi recusada.",
        "Begäran kom från en annan webbplats och avvisades.",
        "यह अनुरोध किसी दूसरी साइट से आया था, इसलिए अस्वीकार कर दिया गया।",
        "このリクエストは別のサイトから送信されたため、拒否されました。",
    ],
    ErrorNotFound => [
        "Not found.",
        "No encontrado.",
        "Não encontrado.",
        "Hittades inte.",
        "नहीं मिला।",
        "見つかりません。",
    ],
    ErrorUnreachable => [
        "The panel could not be reached. Check your connection and try again.",
        "No se pudo contactar con el panel. Comprueba tu conexión y vuelve a intentarlo.",
        "Não foi possível acessar o painel. Verifique sua conexão e tente novamente.",
        "Panelen gick inte att nå. Kontrollera anslutningen och försök igen.",
        "पैनल तक नहीं पहुँचा जा सका। अपना कनेक्शन जाँचें और फिर से प्रयास करें।",
        "パネルに接続できませんでした。接続を確認して、もう一度お試しください。",
    ],
    ErrorInternal => [
        "Something went wrong on the panel server. The details are in its log.",
        "Algo falló en el servidor del panel. Los detalles están en su registro.",
        "Algo deu errado no servidor do painel. Os detalhes estão no log dele.",
        "Något gick fel på panelens server. Detaljerna finns i dess logg.",
        "पैनल सर्वर पर कुछ गड़बड़ हो गई। विवरण उसके लॉग में हैं।",
        "パネルサーバーで問題が発生しました。詳細はサーバーのログにあります。",
    ],
    LoginMissing => [
        "Enter your username and password.",
        "Introduce tu nombre de usuario y tu contraseña.",
        "Informe seu nome de usuário e sua senha.",
        "Ange ditt användarnamn och lösenord.",
        "अपना उपयोगकर्ता नाम और पासवर्ड दर्ज करें।",
        "ユーザー名とパスワードを入力してください。",
    ],
    LoginWrong => [
        "Wrong username or password.",
        "Nombre de usuario o contraseña incorrectos.",
        "Nome de usuário ou senha incorretos.",
        "Fel användarnamn eller lösenord.",
        "गलत उपयोगकर्ता नाम या पासवर्ड।",
        "ユーザー名またはパスワードが正しくありません。",
    ],

    // ── Not found ───────────────────────────────────────────────────────
    /// The page title of the not-found page.
    NotFound => ["Not found", "No encontrado", "Não encontrado", "Hittades inte", "नहीं मिला", "見つかりません"],
    PageNotFound => ["Page not found", "Página no encontrada", "Página não encontrada", "Sidan hittades inte", "पृष्ठ नहीं मिला", "ページが見つかりません"],
    NothingAtThisAddress => [
        "There is nothing at this address.",
        "No hay nada en esta dirección.",
        "Não há nada neste endereço.",
        "Det finns ingenting på den här adressen.",
        "इस पते पर कुछ भी नहीं है।",
        "このアドレスには何もありません。",
    ],
    BackToServers => ["Back to the servers", "Volver a los servidores", "Voltar aos servidores", "Tillbaka till servrarna", "सर्वरों पर वापस जाएँ", "サーバー一覧に戻る"],

    // ── Overview ────────────────────────────────────────────────────────
    EveryServerInRotation => [
        "Every server is in rotation.",
        "Todos los servidores están en rotación.",
        "Todos os servidores estão em rotação.",
        "Alla servrar är i rotation.",
        "सभी सर्वर रोटेशन में हैं।",
        "すべてのサーバーがローテーション中です。",
    ],
    RoutesServingBestAvailable => [
        "Routes serving their best available server (every server is out):",
        "Rutas que sirven su mejor servidor disponible (todos sus servidores están fuera):",
        "Rotas que servem seu melhor servidor disponível (todos os servidores estão fora):",
        "Rutter som levererar sin bästa tillgängliga server (alla servrar är ur rotation):",
        "अपने सबसे अच्छे उपलब्ध सर्वर से सेवा दे रहे रूट (सभी सर्वर बाहर हैं):",
        "利用可能な最善のサーバーで提供中のルート（全サーバーがローテーション外）：",
    ],
    SeeTheOutbox => ["See the outbox", "Ver la bandeja de salida", "Ver a caixa de saída", "Visa utkorgen", "आउटबॉक्स देखें", "送信キューを見る"],
    ServersByStatus => ["Servers by status", "Servidores por estado", "Servidores por status", "Servrar per status", "स्थिति के अनुसार सर्वर", "ステータス別のサーバー"],
    LatestStatusChanges => ["Latest status changes", "Últimos cambios de estado", "Últimas mudanças de status", "Senaste statusändringar", "हाल के स्थिति परिवर्तन", "最近のステータス変更"],
    NoChangeYet => [
        "No change recorded yet.",
        "Aún no se ha registrado ningún cambio.",
        "Nenhuma mudança registrada ainda.",
        "Inga ändringar registrerade än.",
        "अभी तक कोई परिवर्तन दर्ज नहीं हुआ।",
        "記録された変更はまだありません。",
    ],

    // ── Routes ──────────────────────────────────────────────────────────
    NoRoutesYet => ["No routes yet", "Aún no hay rutas", "Ainda não há rotas", "Inga rutter än", "अभी कोई रूट नहीं", "ルートはまだありません"],
    EveryServerToEveryUser => [
        "every server to every user",
        "todos los servidores a cada usuario",
        "todos os servidores para cada usuário",
        "alla servrar till varje användare",
        "हर उपयोगकर्ता को सभी सर्वर",
        "すべてのユーザーにすべてのサーバー",
    ],

    // ── Mesh ────────────────────────────────────────────────────────────
    MeshIntro => [
        "Rows: the witness. Columns: the server it probes.",
        "Filas: el testigo. Columnas: el servidor que sondea.",
        "Linhas: a testemunha. Colunas: o servidor que ela sonda.",
        "Rader: vittnet. Kolumner: servern som det sonderar.",
        "पंक्तियाँ: गवाह। स्तंभ: वह सर्वर जिसकी वह जाँच करता है।",
        "行：証人。列：証人がプローブするサーバー。",
    ],
    /// Mesh cell: the witness and the server are the same.
    CellItself => ["itself", "él mismo", "ele mesmo", "sig själv", "स्वयं", "自身"],
    CellNotProbed => ["no fresh result", "sin resultado reciente", "sem resultado recente", "inget färskt resultat", "कोई ताज़ा परिणाम नहीं", "最新の結果なし"],
    CellReaches => ["reaches it", "lo alcanza", "alcança", "når den", "पहुँच रहा है", "到達可能"],
    CellFailing => ["failing, not yet sustained", "falla, aún no sostenido", "falhando, ainda não persistente", "misslyckas, ännu inte ihållande", "विफल, अभी लगातार नहीं", "失敗中（まだ継続的ではない）"],
    CellSustained => ["can't reach it (sustained)", "no lo alcanza (sostenido)", "não alcança (persistente)", "når den inte (ihållande)", "नहीं पहुँच पा रहा (लगातार)", "到達不可（継続）"],
    CellDiscarded => ["discarded: unreliable witness", "descartado: testigo poco fiable", "descartado: testemunha não confiável", "förkastat: opålitligt vittne", "छोड़ा गया: अविश्वसनीय गवाह", "破棄：信頼できない証人"],
    Legend => ["Legend", "Leyenda", "Legenda", "Teckenförklaring", "संकेत-सूची", "凡例"],
    MeshCaption => [
        "Reachability matrix: rows are witnesses, columns are the servers they probe",
        "Matriz de alcanzabilidad: las filas son testigos y las columnas, los servidores que sondean",
        "Matriz de alcançabilidade: as linhas são testemunhas e as colunas, os servidores que elas sondam",
        "Nåbarhetsmatris: raderna är vittnen, kolumnerna är servrarna de sonderar",
        "पहुँच मैट्रिक्स: पंक्तियाँ गवाह हैं, स्तंभ वे सर्वर हैं जिनकी वे जाँच करते हैं",
        "到達可能性マトリクス：行は証人、列はプローブ先のサーバー",
    ],
    OutOfRotationServedByRoute => [
        "Out of rotation — its users are served by the route's other servers in rotation",
        "Fuera de rotación — a sus usuarios los atienden los demás servidores en rotación de la ruta",
        "Fora de rotação — seus usuários são atendidos pelos outros servidores em rotação da rota",
        "Ur rotation — dess användare betjänas av ruttens övriga servrar i rotation",
        "रोटेशन से बाहर — इसके उपयोगकर्ताओं को रूट के रोटेशन में मौजूद अन्य सर्वरों से सेवा मिल रही है",
        "ローテーション外 — ユーザーにはルート内のローテーション中の他のサーバーが提供されます",
    ],
    AllServersOfRoute => ["All servers of this route", "Todos los servidores de esta ruta", "Todos os servidores desta rota", "Alla servrar på den här rutten", "इस रूट के सभी सर्वर", "このルートの全サーバー"],
    MeshPictureHint => [
        "Each square is one witness and one server. Click a square, or choose a server, to list what it says.",
        "Cada cuadro es un testigo y un servidor. Haz clic en un cuadro, o elige un servidor, para ver lo que dice.",
        "Cada quadrado é uma testemunha e um servidor. Clique em um quadrado, ou escolha um servidor, para ver o que ele diz.",
        "Varje ruta är ett vittne och en server. Klicka på en ruta, eller välj en server, för att se vad den säger.",
        "हर वर्ग एक गवाह और एक सर्वर है। वह क्या कहता है, यह देखने के लिए किसी वर्ग पर क्लिक करें या कोई सर्वर चुनें।",
        "各マスは証人とサーバーの組です。マスをクリックするか、サーバーを選ぶと内容を一覧できます。",
    ],
    MeshPictureAlt => [
        "Reachability picture: rows are witnesses, columns are the servers they probe, grouped by country",
        "Imagen de alcanzabilidad: las filas son testigos y las columnas, los servidores que sondean, agrupados por país",
        "Imagem de alcançabilidade: as linhas são testemunhas e as colunas, os servidores que elas sondam, agrupados por país",
        "Nåbarhetsbild: raderna är vittnen, kolumnerna är servrarna de sonderar, grupperade per land",
        "पहुँच चित्र: पंक्तियाँ गवाह हैं, स्तंभ वे सर्वर हैं जिनकी वे जाँच करते हैं, देश के अनुसार समूहित",
        "到達可能性の図：行は証人、列はプローブ先のサーバー（国ごと）",
    ],
    MeshAsWitness => ["What this witness sees", "Lo que ve este testigo", "O que esta testemunha vê", "Vad vittnet ser", "यह गवाह क्या देखता है", "この証人から見た結果"],
    MeshAsTarget => ["Who reaches this server", "Quién alcanza este servidor", "Quem alcança este servidor", "Vem når servern", "इस सर्वर तक कौन पहुँचता है", "このサーバーへの到達状況"],
    ShowMeshTable => ["Show", "Mostrar", "Mostrar", "Visa", "दिखाएँ", "表示"],
    MeshNone => ["(none)", "(ninguno)", "(nenhum)", "(ingen)", "(कोई नहीं)", "（なし）"],
    MeshCell => ["Result", "Resultado", "Resultado", "Resultat", "परिणाम", "結果"],
    /// The corner header of the mesh matrix.
    WitnessServer => ["Witness \\ server", "Testigo \\ servidor", "Testemunha \\ servidor", "Vittne \\ server", "गवाह \\ सर्वर", "証人 \\ サーバー"],

    // ── Notifications ───────────────────────────────────────────────────
    SendTestEmail => ["Send test email", "Enviar correo de prueba", "Enviar e-mail de teste", "Skicka testmejl", "परीक्षण ईमेल भेजें", "テストメールを送信"],
    NoNotificationsYet => ["No notifications yet", "Aún no hay notificaciones", "Ainda não há notificações", "Inga aviseringar än", "अभी कोई सूचना नहीं", "通知はまだありません"],
    NotificationsHint => [
        "A blocked address (and its clearing) queues one here.",
        "Una dirección bloqueada (y su desbloqueo) pone una en cola aquí.",
        "Um endereço bloqueado (e seu desbloqueio) coloca uma na fila aqui.",
        "En blockerad adress (och när blockeringen hävs) köar en avisering här.",
        "कोई पता ब्लॉक होने पर (और ब्लॉक हटने पर) यहाँ एक सूचना कतार में जुड़ती है।",
        "アドレスのブロック（およびその解除）があると、ここに通知が追加されます。",
    ],
    OutboxCaption => ["Notification outbox", "Bandeja de salida de notificaciones", "Caixa de saída de notificações", "Utkorg för aviseringar", "सूचना आउटबॉक्स", "通知の送信キュー"],
    /// Column header: when the message was queued.
    QueuedAt => ["Queued", "En cola desde", "Enfileirada em", "Köad", "कतार में जोड़ी गई", "登録日時"],
    Kind => ["Kind", "Tipo", "Tipo", "Typ", "प्रकार", "種類"],
    Subject => ["Subject", "Asunto", "Assunto", "Ämne", "विषय", "件名"],
    /// Column header: the recipients.
    To => ["To", "Para", "Para", "Till", "प्राप्तकर्ता", "宛先"],
    State => ["State", "Estado", "Estado", "Tillstånd", "स्थिति", "状態"],
    /// Notification kind: an address block was lifted.
    KindCleared => ["Cleared", "Bloqueo levantado", "Bloqueio removido", "Blockering hävd", "ब्लॉक हटा", "ブロック解除"],
    /// Notification kind: a test message.
    KindTest => ["Test", "Prueba", "Teste", "Test", "परीक्षण", "テスト"],
    NotDeliveredNoTarget => [
        "Not delivered: no email or webhook configured",
        "Sin entregar: no hay correo ni webhook configurado",
        "Não entregue: nenhum e-mail ou webhook configurado",
        "Inte levererad: ingen e-post eller webhook konfigurerad",
        "नहीं भेजी गई: कोई ईमेल या वेबहुक कॉन्फ़िगर नहीं है",
        "未配信：メールも Webhook も設定されていません",
    ],
    /// Delivery state: waiting to be sent.
    StateQueued => ["Queued", "En cola", "Na fila", "I kö", "कतार में", "送信待ち"],
    StateSent => ["Sent", "Enviada", "Enviada", "Skickad", "भेजी गई", "送信済み"],
    StateFailed => ["Failed", "Fallida", "Com falha", "Misslyckad", "विफल", "失敗"],

    // ── Servers list ────────────────────────────────────────────────────
    FilterServers => ["Filter servers", "Filtrar servidores", "Filtrar servidores", "Filtrera servrar", "सर्वर फ़िल्टर करें", "サーバーを絞り込む"],
    ServerFilterPlaceholder => [
        "Name, country, route, host or status",
        "Nombre, país, ruta, host o estado",
        "Nome, país, rota, host ou status",
        "Namn, land, rutt, värd eller status",
        "नाम, देश, रूट, होस्ट या स्थिति",
        "名前、国、ルート、ホスト、ステータス",
    ],
    /// The empty choice of a filter.
    Any => ["Any", "Cualquiera", "Qualquer", "Alla", "कोई भी", "すべて"],
    FilterFacets => [
        "Filter by status, country and route",
        "Filtrar por estado, país y ruta",
        "Filtrar por status, país e rota",
        "Filtrera på status, land och rutt",
        "स्थिति, देश और रूट के अनुसार फ़िल्टर करें",
        "ステータス・国・ルートで絞り込む",
    ],
    ApplyFilters => ["Apply filters", "Aplicar filtros", "Aplicar filtros", "Använd filter", "फ़िल्टर लागू करें", "絞り込みを適用"],
    Role => ["Role", "Función", "Função", "Roll", "भूमिका", "役割"],

    // ── Users list ──────────────────────────────────────────────────────
    SearchUsers => ["Search users", "Buscar usuarios", "Buscar usuários", "Sök användare", "उपयोगकर्ता खोजें", "ユーザーを検索"],
    UserSearchPlaceholder => ["Id, name or route", "ID, nombre o ruta", "ID, nome ou rota", "Id, namn eller rutt", "आईडी, नाम या रूट", "ID、名前、ルート"],
    Search => ["Search", "Buscar", "Buscar", "Sök", "खोजें", "検索"],
    /// `aria-label` of the pager.
    Pages => ["Pages", "Páginas", "Páginas", "Sidor", "पृष्ठ", "ページ"],
    Previous => ["Previous", "Anterior", "Anterior", "Föregående", "पिछला", "前へ"],
    Next => ["Next", "Siguiente", "Próxima", "Nästa", "अगला", "次へ"],
    NoUsersYet => ["No users yet", "Aún no hay usuarios", "Ainda não há usuários", "Inga användare än", "अभी कोई उपयोगकर्ता नहीं", "ユーザーはまだいません"],
    ProvisionUsersHint => [
        "Provision users with PUT /api/v1/fleet.",
        "Da de alta usuarios con PUT /api/v1/fleet.",
        "Provisione usuários com PUT /api/v1/fleet.",
        "Lägg upp användare med PUT /api/v1/fleet.",
        "PUT /api/v1/fleet से उपयोगकर्ता जोड़ें।",
        "PUT /api/v1/fleet でユーザーを登録してください。",
    ],
    NoServerMatches => [
        "No server matches this filter",
        "Ningún servidor coincide con este filtro",
        "Nenhum servidor corresponde a este filtro",
        "Ingen server matchar filtret",
        "इस फ़िल्टर से कोई सर्वर मेल नहीं खाता",
        "この条件に一致するサーバーはありません",
    ],
    NoUserMatches => [
        "No user matches this search",
        "Ningún usuario coincide con esta búsqueda",
        "Nenhum usuário corresponde a esta busca",
        "Ingen användare matchar sökningen",
        "इस खोज से कोई उपयोगकर्ता मेल नहीं खाता",
        "この検索に一致するユーザーはいません",
    ],
    UserSearchHint => [
        "Search by id, name or route.",
        "Busca por ID, nombre o ruta.",
        "Busque por ID, nome ou rota.",
        "Sök på id, namn eller rutt.",
        "आईडी, नाम या रूट से खोजें।",
        "ID、名前、ルートで検索できます。",
    ],
    User => ["User", "Usuario", "Usuário", "Användare", "उपयोगकर्ता", "ユーザー"],
    Id => ["Id", "ID", "ID", "Id", "आईडी", "ID"],

    // ── User card ───────────────────────────────────────────────────────
    RouteAllOutOfRotation => [
        "Every server of this route is out of rotation: the subscription serves the best available one.",
        "Todos los servidores de esta ruta están fuera de rotación: la suscripción sirve el mejor disponible.",
        "Todos os servidores desta rota estão fora de rotação: a assinatura serve o melhor disponível.",
        "Alla servrar på den här rutten är ur rotation: prenumerationen levererar den bästa tillgängliga.",
        "इस रूट के सभी सर्वर रोटेशन से बाहर हैं: सब्सक्रिप्शन सबसे अच्छा उपलब्ध सर्वर देता है।",
        "このルートのすべてのサーバーがローテーション外です。サブスクリプションは利用可能な最善のサーバーを提供します。",
    ],
    InTheSubscription => ["In the subscription", "En la suscripción", "Na assinatura", "I prenumerationen", "सब्सक्रिप्शन में", "サブスクリプションに含まれています"],
    NotAssignedToUser => [
        "Not assigned to this user",
        "No asignado a este usuario",
        "Não atribuído a este usuário",
        "Inte tilldelad den här användaren",
        "इस उपयोगकर्ता को आवंटित नहीं",
        "このユーザーには割り当てられていません",
    ],
    /// Under "Out of rotation" on the user card: one of the user's servers
    /// left rotation and no spare server of the route can take its place.
    NoSpareToReplace => [
        "Not replaced: this route has no spare server in rotation. The user's other servers on it still serve.",
        "Sin sustituto: esta ruta no tiene ningún servidor libre en rotación. Los demás servidores del usuario en ella siguen en servicio.",
        "Sem substituto: esta rota não tem nenhum servidor livre em rotação. Os outros servidores do usuário nela continuam atendendo.",
        "Inte ersatt: rutten har ingen ledig server i rotation. Användarens övriga servrar på rutten levererar fortfarande.",
        "कोई विकल्प नहीं: इस रूट में रोटेशन में कोई खाली सर्वर नहीं है। इस रूट पर उपयोगकर्ता के बाकी सर्वर अब भी सेवा दे रहे हैं।",
        "代替なし：このルートには代わりに使えるローテーション中のサーバーがありません。このユーザーの同じルートの他のサーバーは引き続き提供されています。",
    ],
    /// On the user card: every server of the route is out and the
    /// subscription serves this one anyway.
    ServedAsBestAvailable => [
        "In the subscription as the route's best available server",
        "En la suscripción como el mejor servidor disponible de la ruta",
        "Na assinatura como o melhor servidor disponível da rota",
        "I prenumerationen som ruttens bästa tillgängliga server",
        "रूट के सबसे अच्छे उपलब्ध सर्वर के रूप में सब्सक्रिप्शन में",
        "ルートで利用可能な最善のサーバーとしてサブスクリプションに含まれる",
    ],
    Subscription => ["Subscription", "Suscripción", "Assinatura", "Prenumeration", "सब्सक्रिप्शन", "サブスクリプション"],
    NoSubscriptionToken => [
        "The panel does not know this user's subscription token (it was provisioned before links were kept). Give it again with PUT /api/v1/fleet (sub_token) to show the link here.",
        "El panel no conoce el token de suscripción de este usuario (se dio de alta antes de que se guardaran los enlaces). Vuelve a enviarlo con PUT /api/v1/fleet (sub_token) para mostrar aquí el enlace.",
        "O painel não conhece o token de assinatura deste usuário (ele foi provisionado antes de os links serem guardados). Envie-o novamente com PUT /api/v1/fleet (sub_token) para exibir o link aqui.",
        "Panelen känner inte till användarens prenumerationstoken (den lades upp innan länkar sparades). Ange den igen med PUT /api/v1/fleet (sub_token) för att visa länken här.",
        "पैनल को इस उपयोगकर्ता का सब्सक्रिप्शन टोकन पता नहीं है (इसे लिंक सहेजे जाने से पहले जोड़ा गया था)। लिंक यहाँ दिखाने के लिए इसे PUT /api/v1/fleet (sub_token) से फिर से दें।",
        "パネルはこのユーザーのサブスクリプショントークンを把握していません（リンクを保存するようになる前に登録されました）。ここにリンクを表示するには、PUT /api/v1/fleet（sub_token）で再度指定してください。",
    ],
    SubscriptionLink => ["Subscription link", "Enlace de suscripción", "Link da assinatura", "Prenumerationslänk", "सब्सक्रिप्शन लिंक", "サブスクリプションリンク"],
    Copied => ["Copied", "Copiado", "Copiado", "Kopierad", "कॉपी हो गया", "コピーしました"],
    Copy => ["Copy", "Copiar", "Copiar", "Kopiera", "कॉपी करें", "コピー"],
    SubscriptionQr => [
        "QR code of the subscription link",
        "Código QR del enlace de suscripción",
        "Código QR do link da assinatura",
        "QR-kod för prenumerationslänken",
        "सब्सक्रिप्शन लिंक का QR कोड",
        "サブスクリプションリンクの QR コード",
    ],
    WhatSubscriptionServes => [
        "What the subscription serves now",
        "Lo que sirve ahora la suscripción",
        "O que a assinatura serve agora",
        "Vad prenumerationen levererar nu",
        "सब्सक्रिप्शन अभी क्या दे रहा है",
        "サブスクリプションが現在提供している内容",
    ],
    NothingServed => [
        "Nothing: the user's routes have no servers.",
        "Nada: las rutas del usuario no tienen servidores.",
        "Nada: as rotas do usuário não têm servidores.",
        "Ingenting: användarens rutter har inga servrar.",
        "कुछ नहीं: उपयोगकर्ता के रूटों में कोई सर्वर नहीं है।",
        "なし：このユーザーのルートにはサーバーがありません。",
    ],
    ServedLast => [
        "Not available from some servers (served last)",
        "No disponible desde algunos servidores (se sirve al final)",
        "Inacessível a partir de alguns servidores (servido por último)",
        "Inte nåbar från vissa servrar (levereras sist)",
        "कुछ सर्वरों से अनुपलब्ध (सबसे अंत में दिया जाता है)",
        "一部のサーバーから到達不可（最後に提供）",
    ],

    // ── Server card ─────────────────────────────────────────────────────
    OutOfRotationReplaced => [
        "Out of rotation: its place in subscriptions is taken by healthy servers of its routes",
        "Fuera de rotación: su lugar en las suscripciones lo ocupan servidores en buen estado de sus rutas",
        "Fora de rotação: seu lugar nas assinaturas é ocupado por servidores saudáveis das suas rotas",
        "Ur rotation: dess plats i prenumerationerna tas av friska servrar på dess rutter",
        "रोटेशन से बाहर: सब्सक्रिप्शन में इसकी जगह इसके रूटों के स्वस्थ सर्वर ले रहे हैं",
        "ローテーション外：サブスクリプションでは、同じルートの正常なサーバーが代わりに使われます",
    ],
    OtherConditions => ["Other conditions", "Otras condiciones", "Outras condições", "Andra tillstånd", "अन्य स्थितियाँ", "その他の状態"],
    AlsoHolds => ["Also holds:", "También se cumple:", "Também se aplica:", "Gäller också:", "यह भी लागू है:", "以下にも該当："],
    NeverReported => [
        "This server's agent has never reported.",
        "El agente de este servidor nunca ha enviado informes.",
        "O agente deste servidor nunca enviou relatórios.",
        "Den här serverns agent har aldrig rapporterat.",
        "इस सर्वर के एजेंट ने कभी रिपोर्ट नहीं भेजी।",
        "このサーバーのエージェントは一度もレポートしていません。",
    ],
    /// A self-check that passes.
    CheckOk => ["OK", "Funciona", "Funcionando", "Fungerar", "ठीक", "正常"],
    /// A self-check that fails.
    CheckFailing => ["Failing", "Falla", "Falhando", "Fungerar inte", "विफल", "異常"],
    TrafficListener => ["Traffic listener", "Receptor de tráfico", "Porta de escuta", "Trafiklyssnare", "ट्रैफ़िक लिसनर", "トラフィックリスナー"],
    VpnService => ["VPN service", "Servicio VPN", "Serviço VPN", "VPN-tjänst", "VPN सेवा", "VPN サービス"],
    LastReport => ["Last report", "Último informe", "Último relatório", "Senaste rapport", "अंतिम रिपोर्ट", "最終レポート"],
    SelfCheck => ["Self-check", "Autocomprobación", "Autoverificação", "Självkontroll", "स्व-जाँच", "セルフチェック"],
    Metrics => ["Metrics", "Métricas", "Métricas", "Mätvärden", "मेट्रिक्स", "メトリクス"],
    NoMetricsYet => [
        "No metrics reported yet.",
        "Aún no se han recibido métricas.",
        "Nenhuma métrica recebida ainda.",
        "Inga mätvärden rapporterade än.",
        "अभी तक कोई मेट्रिक्स नहीं मिले।",
        "メトリクスはまだ報告されていません。",
    ],
    Cpu => ["CPU", "CPU", "CPU", "CPU", "CPU", "CPU"],
    Memory => ["Memory", "Memoria", "Memória", "Minne", "मेमोरी", "メモリ"],
    Disk => ["Disk", "Disco", "Disco", "Disk", "डिस्क", "ディスク"],
    NetworkIn => ["Network in", "Red (entrada)", "Rede (entrada)", "Nätverk in", "नेटवर्क (आने वाला)", "ネットワーク受信"],
    NetworkOut => ["Network out", "Red (salida)", "Rede (saída)", "Nätverk ut", "नेटवर्क (जाने वाला)", "ネットワーク送信"],
    Connections => ["Connections", "Conexiones", "Conexões", "Anslutningar", "कनेक्शन", "接続数"],
    Load1 => ["Load (1 min)", "Carga (1 min)", "Carga (1 min)", "Last (1 min)", "लोड (1 मिनट)", "負荷（1分）"],
    SuspendedVerifier => [
        "Suspended verifier: it reaches none of the other servers, so its blocking verdicts are suspended.",
        "Verificador suspendido: no alcanza ninguno de los demás servidores, así que sus veredictos de bloqueo quedan en suspenso.",
        "Verificador suspenso: não alcança nenhum dos outros servidores, por isso seus veredictos de bloqueio estão suspensos.",
        "Avstängd kontrollserver: den når ingen av de andra servrarna, så dess blockeringsbedömningar är tillfälligt upphävda.",
        "निलंबित जाँचकर्ता: यह किसी भी दूसरे सर्वर तक नहीं पहुँचता, इसलिए इसके ब्लॉकिंग निर्णय निलंबित हैं।",
        "停止中の検証サーバー：他のどのサーバーにも到達できないため、ブロック判定は停止されています。",
    ],
    /// The short names of the block kinds (§8), on the user card.
    KindIp => ["Address blocked", "Dirección bloqueada", "Endereço bloqueado", "Adressen blockerad", "पता ब्लॉक", "アドレスがブロック"],
    KindSni => ["SNI filtered: a new IP will not help", "SNI filtrado: una IP nueva no ayudará", "SNI filtrado: um IP novo não vai ajudar", "SNI filtreras: en ny IP-adress hjälper inte", "SNI फ़िल्टर: नया IP मदद नहीं करेगा", "SNI がフィルタリング：新しい IP では解決しません"],
    KindProtocol => ["A protocol is blocked: its entry points are served last", "Un protocolo está bloqueado: sus puntos de entrada se sirven al final", "Um protocolo está bloqueado: seus pontos de entrada são servidos por último", "Ett protokoll blockeras: dess ingångspunkter serveras sist", "एक प्रोटोकॉल ब्लॉक है: उसके प्रवेश बिंदु सबसे आखिर में दिए जाते हैं", "プロトコルがブロック：その接続ポイントは最後に提供されます"],
    KindThrottled => ["Connections freeze after a few KB", "Las conexiones se congelan tras unos KB", "As conexões congelam após alguns KB", "Anslutningar fryser efter några KB", "कुछ KB के बाद कनेक्शन रुक जाते हैं", "数 KB で接続が停止"],
    /// The kinds as nouns, in the Overview's counts per network (§8).
    KindIpNoun => ["address", "dirección", "endereço", "adress", "पता", "アドレス"],
    KindSniNoun => ["SNI", "SNI", "SNI", "SNI", "SNI", "SNI"],
    KindProtocolNoun => ["protocol", "protocolo", "protocolo", "protokoll", "प्रोटोकॉल", "プロトコル"],
    KindThrottledNoun => ["freeze", "congelación", "congelamento", "frysning", "कनेक्शन रुकना", "接続停止"],
    /// A verifier that reaches none of its control addresses (§8).
    ControlsUnreachable => [
        "Allowlist or shutdown mode: this verifier cannot reach its own network's control addresses either, so its verdicts are suspended.",
        "Modo de lista blanca o apagón: este verificador tampoco alcanza las direcciones de control de su propia red, así que sus veredictos quedan en suspenso.",
        "Modo de lista de permissões ou apagão: este verificador também não alcança os endereços de controle da própria rede, por isso seus veredictos estão suspensos.",
        "Vitlistnings- eller nedstängningsläge: den här kontrollservern når inte heller sitt eget näts kontrolladresser, så dess bedömningar är tillfälligt upphävda.",
        "अनुमति-सूची या शटडाउन मोड: यह जाँचकर्ता अपने ही नेटवर्क के नियंत्रण पतों तक भी नहीं पहुँच पा रहा, इसलिए इसके निर्णय निलंबित हैं।",
        "許可リストまたは遮断モード：この検証サーバーは自ネットワークのコントロール用アドレスにも到達できないため、判定は停止されています。",
    ],
    NoFreshWitness => [
        "No fresh reliable witness probes this server.",
        "Ningún testigo fiable con datos recientes sondea este servidor.",
        "Nenhuma testemunha confiável com dados recentes sonda este servidor.",
        "Inget tillförlitligt vittne med färska data sonderar den här servern.",
        "कोई भी ताज़ा और विश्वसनीय गवाह इस सर्वर की जाँच नहीं कर रहा।",
        "このサーバーをプローブしている、最新で信頼できる証人はありません。",
    ],
    MeshView => ["Mesh view", "Vista de la red mesh", "Visão da rede mesh", "Meshvy", "मेश दृश्य", "メッシュビュー"],
    /// Column header: the servers that reach this one.
    ReachIt => ["Reach it", "Lo alcanzan", "Alcançam", "Når den", "पहुँच रहे हैं", "到達可能"],
    /// Column header: the servers that fail to reach this one.
    CantReachIt => ["Can't reach it", "No lo alcanzan", "Não alcançam", "Når den inte", "नहीं पहुँच पा रहे", "到達不可"],
    /// An entry point nobody fails to reach.
    Available => ["Available", "Disponible", "Acessível", "Nåbar", "उपलब्ध", "到達可能"],
    /// The notifications list's name of a whole-fleet fault message.
    ActionsOffBudget => ["Actions switched themselves off: a run would have gone past their budget. No action runs until you switch them on again.", "Las acciones se desactivaron solas: una ejecución habría superado su presupuesto. Ninguna acción se ejecuta hasta que las vuelvas a activar.", "As ações se desativaram sozinhas: uma execução teria passado do orçamento. Nenhuma ação roda até você reativá-las.", "Åtgärderna stängde av sig själva: en körning skulle ha gått över budgeten. Inga åtgärder körs förrän du slår på dem igen.", "क्रियाएँ अपने आप बंद हो गईं: एक क्रिया बजट से आगे चली जाती। जब तक आप इन्हें फिर चालू नहीं करते, कोई क्रिया नहीं चलेगी।", "アクションが自動的に無効になりました。実行すると予算を超えるためです。再び有効にするまでアクションは実行されません。"],
    RunTheirActions => ["Run their actions", "Ejecutar sus acciones", "Executar as ações", "Kör deras åtgärder", "इनकी क्रियाएँ चलाएँ", "アクションを実行する"],
    DismissTheirActions => ["Dismiss their actions", "Descartar sus acciones", "Descartar as ações", "Avfärda deras åtgärder", "इनकी क्रियाएँ रद्द करें", "アクションを破棄する"],
    MassBlockConfirmed => ["You confirmed: their actions run.", "Confirmaste: sus acciones se ejecutan.", "Você confirmou: as ações são executadas.", "Du bekräftade: deras åtgärder körs.", "आपने पुष्टि की: इनकी क्रियाएँ चलती हैं।", "確認済み：アクションは実行されます。"],
    MassBlockDismissed => ["You dismissed their actions: none runs.", "Descartaste sus acciones: no se ejecuta ninguna.", "Você descartou as ações: nenhuma é executada.", "Du avfärdade deras åtgärder: ingen körs.", "आपने इनकी क्रियाएँ रद्द कीं: कोई नहीं चलेगी।", "アクションを破棄しました：実行されません。"],
    KindActionsOff => ["Actions switched off", "Acciones desactivadas", "Ações desativadas", "Åtgärder avstängda", "क्रियाएँ बंद हुईं", "アクションが無効になりました"],
    KindConnectorFailed => ["Connected panel not answering", "Panel conectado sin respuesta", "Painel conectado sem resposta", "Ansluten panel svarar inte", "जुड़ा हुआ पैनल जवाब नहीं दे रहा", "接続パネルが応答しません"],
    ConnectedPanels => ["Connected panels", "Paneles conectados", "Painéis conectados", "Anslutna paneler", "जुड़े हुए पैनल", "接続パネル"],
    ConnectedPanelsHelp => ["meshwatch turns off, in the panel you already run, the hosts of servers out of rotation, and back on only those it turned off when they return. A new connection starts in dry run: it shows what it would change and changes nothing.", "meshwatch desactiva, en el panel que ya usas, los hosts de los servidores fuera de rotación, y vuelve a activar solo los que desactivó cuando vuelven. Una conexión nueva empieza en simulación: muestra lo que cambiaría y no cambia nada.", "O meshwatch desativa, no painel que você já usa, os hosts dos servidores fora de rotação, e reativa só os que ele desativou quando voltam. Uma conexão nova começa em simulação: mostra o que mudaria e não muda nada.", "meshwatch stänger av, i panelen du redan kör, värdarna för servrar ur rotation, och slår bara på dem den själv stängde av när de är tillbaka. En ny anslutning börjar som torrkörning: den visar vad den skulle ändra och ändrar ingenting.", "meshwatch आपके मौजूदा पैनल में रोटेशन से बाहर के सर्वरों के होस्ट बंद करता है, और उनके लौटने पर सिर्फ़ वही होस्ट फिर चालू करता है जिन्हें उसने बंद किया था। नया कनेक्शन ड्राई रन में शुरू होता है: वह दिखाता है कि क्या बदलेगा, और कुछ नहीं बदलता।", "meshwatch は、すでにお使いのパネルで、ローテーション外のサーバーのホストを無効にし、復帰したときは自分が無効にしたホストだけを有効に戻します。新しい接続はドライランで始まり、変更内容を表示するだけで何も変更しません。"],
    NoConnectors => ["No panel connected.", "Ningún panel conectado.", "Nenhum painel conectado.", "Ingen panel ansluten.", "कोई पैनल जुड़ा नहीं है।", "接続されたパネルはありません。"],
    ConnectorName => ["Name", "Nombre", "Nome", "Namn", "नाम", "名前"],
    ConnectorKind => ["Panel", "Panel", "Painel", "Panel", "पैनल", "パネル"],
    ConnectorUrl => ["Address", "Dirección", "Endereço", "Adress", "पता", "アドレス"],
    ConnectorToken => ["Token", "Token", "Token", "Token", "टोकन", "トークン"],
    ConnectorTokenHelp => ["Remnawave and 3x-ui: an API token. PasarGuard, Marzneshin and Marzban: username:password of an admin.", "Remnawave y 3x-ui: un token de API. PasarGuard, Marzneshin y Marzban: usuario:contraseña de un administrador.", "Remnawave e 3x-ui: um token de API. PasarGuard, Marzneshin e Marzban: usuário:senha de um administrador.", "Remnawave och 3x-ui: en API-token. PasarGuard, Marzneshin och Marzban: användarnamn:lösenord för en administratör.", "Remnawave और 3x-ui: एक API टोकन। PasarGuard, Marzneshin और Marzban: किसी एडमिन का username:password।", "Remnawave と 3x-ui：API トークン。PasarGuard、Marzneshin、Marzban：管理者の ユーザー名:パスワード。"],
    ConnectorTag => ["Only hosts with the tag (optional)", "Solo hosts con la etiqueta (opcional)", "Só hosts com a tag (opcional)", "Bara värdar med taggen (valfritt)", "सिर्फ़ इस टैग वाले होस्ट (वैकल्पिक)", "このタグのホストのみ（任意）"],
    ConnectPanel => ["Connect in dry run", "Conectar en simulación", "Conectar em simulação", "Anslut som torrkörning", "ड्राई रन में जोड़ें", "ドライランで接続"],
    ConnectorDryRun => ["Dry run", "Simulación", "Simulação", "Torrkörning", "ड्राई रन", "ドライラン"],
    ConnectorApplying => ["Applying", "Aplicando", "Aplicando", "Tillämpar", "लागू कर रहा है", "適用中"],
    ApplyChanges => ["Apply its changes", "Aplicar sus cambios", "Aplicar as mudanças", "Tillämpa ändringarna", "बदलाव लागू करें", "変更を適用"],
    BackToDryRun => ["Back to dry run", "Volver a simulación", "Voltar à simulação", "Tillbaka till torrkörning", "ड्राई रन पर लौटें", "ドライランに戻す"],
    RemoveConnector => ["Remove", "Quitar", "Remover", "Ta bort", "हटाएँ", "削除"],
    ConnectorOk => ["In step", "Sincronizado", "Sincronizado", "I takt", "तालमेल में", "同期済み"],
    ConnectorFailing => ["Failing", "Con fallos", "Com falha", "Misslyckas", "विफल", "失敗中"],
    ConnectorRemoving => ["Turning its hosts back on before it goes", "Reactivando sus hosts antes de quitarse", "Reativando seus hosts antes de sair", "Slår på sina värdar igen innan den tas bort", "हटने से पहले अपने होस्ट फिर चालू कर रहा है", "削除前にホストを有効に戻しています"],
    LastSync => ["Last sync", "Última sincronización", "Última sincronização", "Senaste synk", "पिछला सिंक", "最終同期"],
    NeverSynced => ["not yet", "todavía no", "ainda não", "inte än", "अभी नहीं", "まだ"],
    PendingChanges => ["Pending changes", "Cambios pendientes", "Mudanças pendentes", "Väntande ändringar", "बाकी बदलाव", "保留中の変更"],
    NoPendingChanges => ["Nothing to change.", "Nada que cambiar.", "Nada a mudar.", "Inget att ändra.", "कुछ बदलना नहीं है।", "変更はありません。"],
    WouldTurnOff => ["turn off", "desactivar", "desativar", "stäng av", "बंद करें", "無効にする"],
    WouldTurnOn => ["turn back on", "reactivar", "reativar", "slå på igen", "फिर चालू करें", "有効に戻す"],
    HostsTurnedOff => ["Hosts meshwatch turned off", "Hosts que meshwatch desactivó", "Hosts que o meshwatch desativou", "Värdar som meshwatch stängt av", "meshwatch द्वारा बंद किए गए होस्ट", "meshwatch が無効にしたホスト"],
    ImportServers => ["Import servers", "Importar servidores", "Importar servidores", "Importera servrar", "सर्वर इंपोर्ट करें", "サーバーをインポート"],
    ImportProposal => ["Servers to import", "Servidores para importar", "Servidores para importar", "Servrar att importera", "इंपोर्ट करने वाले सर्वर", "インポートするサーバー"],
    ImportHelp => ["Read from the panel's nodes and hosts. Nothing changes until you add them; every new server then needs its agent, and its card gives the install command.", "Leído de los nodos y hosts del panel. Nada cambia hasta que los añadas; cada servidor nuevo necesita luego su agente, y su ficha da el comando de instalación.", "Lido dos nós e hosts do painel. Nada muda até você adicioná-los; cada servidor novo precisa depois do seu agente, e o cartão dele dá o comando de instalação.", "Läst från panelens noder och värdar. Inget ändras förrän du lägger till dem; varje ny server behöver sedan sin agent, och dess kort ger installationskommandot.", "पैनल के नोड और होस्ट से पढ़ा गया। जोड़ने तक कुछ नहीं बदलता; फिर हर नए सर्वर को अपना एजेंट चाहिए, और उसका कार्ड इंस्टॉल कमांड देता है।", "パネルのノードとホストから読み取りました。追加するまで何も変わりません。新しいサーバーにはそれぞれエージェントが必要で、そのカードにインストールコマンドがあります。"],
    NewServers => ["New servers", "Servidores nuevos", "Servidores novos", "Nya servrar", "नए सर्वर", "新しいサーバー"],
    NewRoutes => ["New routes", "Rutas nuevas", "Rotas novas", "Nya rutter", "नए रूट", "新しいルート"],
    AlreadyInFleet => ["Already in the fleet", "Ya en la flota", "Já na frota", "Redan i flottan", "पहले से फ़्लीट में", "すでにフリートにあります"],
    LeftOut => ["Left out", "Omitidos", "Deixados de fora", "Utelämnade", "छोड़े गए", "除外"],
    SkipNoPort => ["no single port", "sin un puerto único", "sem uma porta única", "ingen enskild port", "कोई एक पोर्ट नहीं", "単一のポートがありません"],
    SkipNoProtocol => ["a protocol meshwatch does not probe", "un protocolo que meshwatch no sondea", "um protocolo que o meshwatch não sonda", "ett protokoll som meshwatch inte provar", "ऐसा प्रोटोकॉल जिसे meshwatch नहीं जाँचता", "meshwatch がプローブしないプロトコル"],
    SkipNotAnAddress => ["its address is a template or a list", "su dirección es una plantilla o una lista", "o endereço é um modelo ou uma lista", "adressen är en mall eller en lista", "उसका पता एक टेम्पलेट या सूची है", "アドレスがテンプレートかリストです"],
    CountryUnknown => ["country unknown (XX): set it in the fleet", "país desconocido (XX): fíjalo en la flota", "país desconhecido (XX): defina-o na frota", "okänt land (XX): ange det i flottan", "देश अज्ञात (XX): इसे फ़्लीट में तय करें", "国が不明（XX）：フリートで設定してください"],
    AddImportedServers => ["Add these servers", "Añadir estos servidores", "Adicionar estes servidores", "Lägg till dessa servrar", "ये सर्वर जोड़ें", "これらのサーバーを追加"],
    NothingToImport => ["Nothing to import: every host is in the fleet already.", "Nada que importar: todos los hosts ya están en la flota.", "Nada a importar: todos os hosts já estão na frota.", "Inget att importera: alla värdar finns redan i flottan.", "इंपोर्ट करने को कुछ नहीं: हर होस्ट पहले से फ़्लीट में है।", "インポートするものはありません。すべてのホストがすでにフリートにあります。"],
    ServersAdded => ["Servers added. Each one's card gives its agent's install command:", "Servidores añadidos. La ficha de cada uno da el comando de instalación de su agente:", "Servidores adicionados. O cartão de cada um dá o comando de instalação do agente:", "Servrar tillagda. Varje servers kort ger agentens installationskommando:", "सर्वर जोड़ दिए गए। हर सर्वर का कार्ड उसके एजेंट की इंस्टॉल कमांड देता है:", "サーバーを追加しました。各カードにエージェントのインストールコマンドがあります："],
    AgentInstall => ["Agent", "Agente", "Agente", "Agent", "एजेंट", "エージェント"],
    AgentInstallHelp => ["With the agent installed as the README says (the same files on every server), one line gives this server its token and starts it. A new token stops the current one at once.", "Con el agente instalado como dice el README (los mismos archivos en cada servidor), una línea da a este servidor su token y lo arranca. Un token nuevo anula el actual al instante.", "Com o agente instalado como diz o README (os mesmos arquivos em cada servidor), uma linha dá a este servidor o seu token e o inicia. Um token novo invalida o atual na hora.", "Med agenten installerad enligt README (samma filer på varje server) ger en rad den här servern dess token och startar den. En ny token stoppar den nuvarande direkt.", "README के अनुसार एजेंट इंस्टॉल होने पर (हर सर्वर पर वही फ़ाइलें), एक लाइन इस सर्वर को उसका टोकन देती है और उसे शुरू करती है। नया टोकन मौजूदा टोकन को तुरंत बंद कर देता है।", "README のとおりにエージェントを入れてあれば（どのサーバーも同じファイル）、1 行でこのサーバーにトークンを渡して起動します。新しいトークンを作ると今のトークンはすぐに無効になります。"],
    NewAgentToken => ["New agent token and install command", "Nuevo token de agente y comando de instalación", "Novo token do agente e comando de instalação", "Ny agenttoken och installationskommando", "नया एजेंट टोकन और इंस्टॉल कमांड", "新しいエージェントトークンとインストールコマンド"],
    InstallCommandOnce => ["Run this on the server, as root. It is shown only now.", "Ejecútalo en el servidor, como root. Solo se muestra ahora.", "Execute no servidor, como root. Só é mostrado agora.", "Kör detta på servern som root. Det visas bara nu.", "इसे सर्वर पर root के रूप में चलाएँ। यह सिर्फ़ अभी दिखेगा।", "サーバー上で root として実行してください。表示は今回だけです。"],
    MatchedHosts => ["Matched hosts", "Hosts emparejados", "Hosts correspondentes", "Matchade värdar", "मेल खाने वाले होस्ट", "一致したホスト"],
    KindWitnessNetwork => ["Witnesses' network", "Red de los testigos", "Rede das testemunhas", "Vittnenas nätverk", "गवाहों का नेटवर्क", "証人のネットワーク"],
    /// Under an entry point's pair-failure causes (docs/PRODUCT.md §6).
    PairFailureGuidance => [
        "A pair failure alone cannot tell which side is blocked. Whether to replace a server is your call — usually the one the clients can't reach.",
        "Un fallo entre dos servidores no basta para saber qué lado está bloqueado. Reemplazar un servidor es decisión tuya; normalmente, el que los clientes no pueden alcanzar.",
        "Uma falha entre dois servidores, por si só, não indica qual lado está bloqueado. Substituir um servidor é decisão sua — normalmente, aquele que os clientes não conseguem alcançar.",
        "Ett fel mellan två servrar säger inte ensamt vilken sida som är blockerad. Om en server ska bytas ut avgör du – oftast den som klienterna inte når.",
        "सिर्फ़ दो सर्वरों के बीच की विफलता से यह पता नहीं चलता कि कौन-सा पक्ष ब्लॉक है। किसी सर्वर को बदलना है या नहीं, यह आपका निर्णय है — आमतौर पर वह सर्वर जिस तक क्लाइंट नहीं पहुँच पा रहे।",
        "2台のサーバー間のチェック失敗だけでは、どちら側がブロックされているかは判断できません。サーバーを置き換えるかどうかはオペレーターの判断です。通常は、クライアントから到達できない側を置き換えます。",
    ],
    NoSustainedFailure => [
        "No witness reports a sustained failure towards it.",
        "Ningún testigo informa de un fallo sostenido hacia él.",
        "Nenhuma testemunha relata uma falha persistente ao tentar alcançá-lo.",
        "Inget vittne rapporterar ett ihållande fel mot den.",
        "कोई भी गवाह इस तक लगातार विफलता की रिपोर्ट नहीं करता।",
        "この接続ポイントへの継続的な失敗を報告している証人はありません。",
    ],
    VerifierOnHelp => [
        "This server checks the others for blocking: when it can't reach every entry point of a server, that address is marked blocked.",
        "Este servidor comprueba si los demás están bloqueados: cuando no alcanza ninguno de los puntos de entrada de un servidor, esa dirección se marca como bloqueada.",
        "Este servidor verifica bloqueios nos demais: quando não alcança nenhum dos pontos de entrada de um servidor, esse endereço é marcado como bloqueado.",
        "Den här servern kontrollerar de övriga efter blockeringar: när den inte når någon av en servers ingångspunkter markeras adressen som blockerad.",
        "यह सर्वर बाकी सर्वरों की ब्लॉकिंग जाँचता है: जब यह किसी सर्वर के किसी भी प्रवेश बिंदु तक नहीं पहुँच पाता, तो उस पते को ब्लॉक चिह्नित किया जाता है।",
        "このサーバーは他のサーバーのブロックを確認します。あるサーバーのどの接続ポイントにも到達できない場合、そのアドレスはブロック済みとしてマークされます。",
    ],
    VerifierOffHelp => [
        "A verifier is a server (ideally in the censored network) whose failing checks mark another server's address as blocked.",
        "Un verificador es un servidor (idealmente dentro de la red censurada) cuyas comprobaciones fallidas marcan como bloqueada la dirección de otro servidor.",
        "Um verificador é um servidor (de preferência na rede censurada) cujas verificações com falha marcam o endereço de outro servidor como bloqueado.",
        "En kontrollserver är en server (helst i det censurerade nätet) vars misslyckade kontroller markerar en annan servers adress som blockerad.",
        "जाँचकर्ता ऐसा सर्वर है (आदर्श रूप से सेंसर किए गए नेटवर्क में) जिसकी विफल जाँचें किसी दूसरे सर्वर के पते को ब्लॉक चिह्नित करती हैं।",
        "検証サーバーとは、（理想的には検閲下のネットワーク内にある）サーバーのことで、そのチェックが失敗すると他のサーバーのアドレスがブロック済みとしてマークされます。",
    ],
    VerifierNetwork => ["Network of this verifier (optional)", "Red de este verificador (opcional)", "Rede deste verificador (opcional)", "Kontrollserverns nätverk (valfritt)", "इस जाँचकर्ता का नेटवर्क (वैकल्पिक)", "この検証サーバーのネットワーク（任意）"],
    VerifierNetworkHint => [
        "The ISP or kind of network it probes from, such as “MTS mobile” or “Rostelecom home”: blocks are then told per network.",
        "El proveedor o el tipo de red desde el que comprueba, como «MTS móvil» o «Rostelecom hogar»: así los bloqueos se indican por red.",
        "O provedor ou o tipo de rede de onde ele verifica, como “MTS móvel” ou “Rostelecom residencial”: assim os bloqueios são informados por rede.",
        "Operatören eller typen av nät som den kontrollerar från, t.ex. ”MTS mobil” eller ”Rostelecom hem”: då redovisas blockeringar per nät.",
        "वह ISP या नेटवर्क का प्रकार जहाँ से यह जाँच करता है, जैसे “MTS mobile” या “Rostelecom home”: तब ब्लॉक हर नेटवर्क के लिए अलग बताए जाते हैं।",
        "確認元の ISP またはネットワークの種類（「MTS mobile」「Rostelecom home」など）。ブロックがネットワークごとに表示されます。",
    ],
    BlockedByNetwork => ["Blocked servers by network", "Servidores bloqueados por red", "Servidores bloqueados por rede", "Blockerade servrar per nät", "नेटवर्क के अनुसार ब्लॉक सर्वर", "ネットワーク別のブロック中サーバー"],
    NoNetworkNamed => ["Verifiers without a network", "Verificadores sin red indicada", "Verificadores sem rede indicada", "Kontrollservrar utan angivet nät", "बिना नेटवर्क वाले जाँचकर्ता", "ネットワーク未設定の検証サーバー"],
    SaveNetwork => ["Save network and controls", "Guardar red y controles", "Salvar rede e controles", "Spara nätverk och kontroller", "नेटवर्क और नियंत्रण सहेजें", "ネットワークとコントロールを保存"],
    /// The verifier's control SNI field (§8).
    ControlSni => ["Control SNI", "SNI de control", "SNI de controle", "Kontroll-SNI", "नियंत्रण SNI", "コントロール SNI"],
    ControlSniHint => [
        "A name this verifier's network is known to reach (e.g. ya.ru). A handshake that fails after TCP connected is retried with it to the same address: success there means the entry point's SNI is filtered.",
        "Un nombre que la red de este verificador alcanza con certeza (p. ej. ya.ru). Un handshake que falla tras conectar por TCP se repite con él a la misma dirección: si funciona, el SNI del punto de entrada está filtrado.",
        "Um nome que a rede deste verificador comprovadamente alcança (ex.: ya.ru). Um handshake que falha depois da conexão TCP é repetido com ele no mesmo endereço: se funcionar, o SNI do ponto de entrada está filtrado.",
        "Ett namn som den här kontrollserverns nät säkert når (t.ex. ya.ru). En handskakning som misslyckas efter att TCP anslutit görs om med det mot samma adress: lyckas den är ingångspunktens SNI filtrerat.",
        "ऐसा नाम जिस तक इस जाँचकर्ता का नेटवर्क निश्चित रूप से पहुँचता है (जैसे ya.ru)। TCP जुड़ने के बाद विफल हुआ हैंडशेक उसी पते पर इसके साथ दोबारा किया जाता है: सफल होने का अर्थ है कि प्रवेश बिंदु का SNI फ़िल्टर हो रहा है।",
        "この検証サーバーのネットワークから確実に到達できる名前（例：ya.ru）。TCP 接続後に失敗したハンドシェイクを同じアドレスにこの名前で再試行し、成功すれば接続ポイントの SNI がフィルタリングされていると分かります。",
    ],
    /// The verifier's control addresses field (§8).
    ControlAddresses => ["Control addresses", "Direcciones de control", "Endereços de controle", "Kontrolladresser", "नियंत्रण पते", "コントロール用アドレス"],
    ControlAddressesHint => [
        "Up to 8 domestic host:port addresses, one per line. When the verifier reaches none of them either, its network is in an allowlist or shutdown mode and its verdicts are suspended.",
        "Hasta 8 direcciones nacionales host:puerto, una por línea. Si el verificador tampoco alcanza ninguna, su red está en modo de lista blanca o apagón y sus veredictos quedan en suspenso.",
        "Até 8 endereços nacionais host:porta, um por linha. Se o verificador também não alcançar nenhum, a rede dele está em modo de lista de permissões ou apagão e seus veredictos ficam suspensos.",
        "Upp till 8 inhemska adresser värd:port, en per rad. Når kontrollservern inte heller någon av dem är dess nät i vitlistnings- eller nedstängningsläge och dess bedömningar upphävs tillfälligt.",
        "अधिकतम 8 घरेलू host:port पते, हर पंक्ति में एक। अगर जाँचकर्ता इनमें से किसी तक भी नहीं पहुँचता, तो उसका नेटवर्क अनुमति-सूची या शटडाउन मोड में है और उसके निर्णय निलंबित रहते हैं।",
        "国内の host:port アドレスを最大8件、1行に1件。検証サーバーがそのどれにも到達できない場合、そのネットワークは許可リストまたは遮断モードにあり、判定は停止されます。",
    ],
    /// The maintenance section of a server card and a route.
    Maintenance => ["Maintenance", "Mantenimiento", "Manutenção", "Underhåll", "रखरखाव", "メンテナンス"],
    MaintenanceHelp => [
        "During a window the server is out of rotation (from an hour before it starts, so the apps move away first), its verdicts are still derived and shown, and no notification is sent. It returns by itself when the window ends.",
        "Durante una ventana el servidor queda fuera de rotación (desde una hora antes de que empiece, para que las apps se muevan antes), sus veredictos se siguen calculando y mostrando, y no se envía ninguna notificación. Vuelve solo cuando termina la ventana.",
        "Durante uma janela o servidor fica fora de rotação (desde uma hora antes do início, para que os apps saiam antes), seus veredictos continuam sendo calculados e exibidos e nenhuma notificação é enviada. Ele volta sozinho quando a janela termina.",
        "Under ett fönster är servern ur rotation (från en timme innan det börjar, så att apparna hinner flytta), dess bedömningar tas fortfarande fram och visas, och inga aviseringar skickas. Den kommer tillbaka av sig själv när fönstret slutar.",
        "विंडो के दौरान सर्वर रोटेशन से बाहर रहता है (शुरू होने से एक घंटा पहले से, ताकि ऐप पहले हट जाएँ), उसके निर्णय फिर भी निकाले और दिखाए जाते हैं, और कोई सूचना नहीं भेजी जाती। विंडो खत्म होने पर वह अपने आप लौट आता है।",
        "メンテナンス枠の間、サーバーはローテーションから外れます（アプリが先に移動できるよう開始の1時間前から）。判定は引き続き算出・表示され、通知は送信されません。枠が終わると自動的に戻ります。",
    ],
    ScheduleMaintenance => ["Schedule maintenance", "Programar mantenimiento", "Agendar manutenção", "Schemalägg underhåll", "रखरखाव निर्धारित करें", "メンテナンスを予約"],
    MaintenanceStart => ["Start (UTC)", "Inicio (UTC)", "Início (UTC)", "Start (UTC)", "शुरुआत (UTC)", "開始（UTC）"],
    MaintenanceEnd => ["End (UTC)", "Fin (UTC)", "Fim (UTC)", "Slut (UTC)", "समाप्ति (UTC)", "終了（UTC）"],
    RepeatWeekly => ["Repeat every week", "Repetir cada semana", "Repetir toda semana", "Upprepa varje vecka", "हर सप्ताह दोहराएँ", "毎週繰り返す"],
    MaintenanceNote => ["Note (optional)", "Nota (opcional)", "Observação (opcional)", "Anteckning (valfri)", "टिप्पणी (वैकल्पिक)", "メモ（任意）"],
    CancelMaintenance => ["Cancel window", "Cancelar ventana", "Cancelar janela", "Avbryt fönstret", "विंडो रद्द करें", "枠を取り消す"],
    NoMaintenancePlanned => ["No maintenance planned.", "No hay mantenimiento programado.", "Nenhuma manutenção agendada.", "Inget underhåll planerat.", "कोई रखरखाव निर्धारित नहीं है।", "予定されたメンテナンスはありません。"],
    EveryWeek => ["every week", "cada semana", "toda semana", "varje vecka", "हर सप्ताह", "毎週"],
    RouteAllInMaintenance => [
        "Every server of this route is in maintenance: its subscriptions serve the best available one.",
        "Todos los servidores de esta ruta están en mantenimiento: sus suscripciones sirven el mejor disponible.",
        "Todos os servidores desta rota estão em manutenção: as assinaturas servem o melhor disponível.",
        "Alla servrar på den här rutten är under underhåll: prenumerationerna levererar den bästa tillgängliga.",
        "इस रूट के सभी सर्वर रखरखाव में हैं: इसके सब्सक्रिप्शन सबसे अच्छा उपलब्ध सर्वर देती हैं।",
        "このルートのサーバーはすべてメンテナンス中です。サブスクリプションは利用可能な最善のサーバーを提供します。",
    ],
    History => ["History", "Historial", "Histórico", "Historik", "इतिहास", "履歴"],
    /// Actions (§6): Settings → Actions, and a server's runs.
    Actions => ["Actions", "Acciones", "Ações", "Åtgärder", "क्रियाएँ", "アクション"],
    ActionsHelp => [
        "An action runs a command (no shell; the event arrives as JSON on its standard input and in MESHWATCH_* variables) or makes an HTTP call when an event has held for the minutes you choose: once per incident, retried with backoff if it fails, never for a server in maintenance.",
        "Una acción ejecuta un comando (sin shell; el evento llega como JSON por su entrada estándar y en variables MESHWATCH_*) o hace una llamada HTTP cuando un evento se mantiene durante los minutos que elijas: una vez por incidente, con reintentos espaciados si falla, y nunca para un servidor en mantenimiento.",
        "Uma ação executa um comando (sem shell; o evento chega como JSON na entrada padrão e em variáveis MESHWATCH_*) ou faz uma chamada HTTP quando um evento se mantém pelos minutos que você escolher: uma vez por incidente, com novas tentativas espaçadas se falhar, e nunca para um servidor em manutenção.",
        "En åtgärd kör ett kommando (inget skal; händelsen kommer som JSON på standard in och i MESHWATCH_*-variabler) eller gör ett HTTP-anrop när en händelse har varat så många minuter du väljer: en gång per incident, med glesare nya försök om den misslyckas, aldrig för en server under underhåll.",
        "क्रिया एक कमांड चलाती है (बिना शेल के; घटना JSON के रूप में उसके स्टैंडर्ड इनपुट और MESHWATCH_* वेरिएबल में आती है) या HTTP कॉल करती है, जब कोई घटना आपके चुने मिनटों तक बनी रहे: हर इंसिडेंट पर एक बार, विफल होने पर अंतराल के साथ दोबारा, और रखरखाव में चल रहे सर्वर के लिए कभी नहीं।",
        "アクションは、イベントが指定した分数続いたときにコマンド（シェルなし。イベントは標準入力の JSON と MESHWATCH_* 変数で渡されます）を実行するか HTTP 呼び出しを行います。インシデントごとに1回、失敗時は間隔を空けて再試行し、メンテナンス中のサーバーには実行しません。",
    ],
    ActionsAreOn => ["Actions are on.", "Las acciones están activadas.", "As ações estão ativadas.", "Åtgärder är påslagna.", "क्रियाएँ चालू हैं।", "アクションは有効です。"],
    ActionsAreOff => ["Actions are off: none runs until they are switched on again.", "Las acciones están desactivadas: ninguna se ejecuta hasta que se vuelvan a activar.", "As ações estão desativadas: nenhuma é executada até que sejam ativadas de novo.", "Åtgärder är avslagna: ingen körs förrän de slås på igen.", "क्रियाएँ बंद हैं: दोबारा चालू किए जाने तक कोई नहीं चलेगी।", "アクションは無効です。再び有効にするまで何も実行されません。"],
    /// An action whose program is not on this host's allow-list.
    OffOnThisHost => ["Off on this host", "Desactivada en este servidor", "Desativada neste servidor", "Avstängd på den här värden", "इस होस्ट पर बंद", "このホストでは無効"],
    SwitchActionsOff => ["Switch all actions off", "Desactivar todas las acciones", "Desativar todas as ações", "Slå av alla åtgärder", "सभी क्रियाएँ बंद करें", "すべてのアクションを無効にする"],
    SwitchActionsOn => ["Switch actions on", "Activar las acciones", "Ativar as ações", "Slå på åtgärder", "क्रियाएँ चालू करें", "アクションを有効にする"],
    NoActions => ["No actions yet.", "Todavía no hay acciones.", "Ainda não há ações.", "Inga åtgärder än.", "अभी कोई क्रिया नहीं है।", "アクションはまだありません。"],
    ActionName => ["Name", "Nombre", "Nome", "Namn", "नाम", "名前"],
    ActionOn => ["Runs on", "Se ejecuta cuando", "Executar quando", "Körs vid", "कब चलती है", "実行するイベント"],
    AfterMinutes => ["After (minutes)", "Tras (minutos)", "Após (minutos)", "Efter (minuter)", "इतने मिनट बाद", "待機時間（分）"],
    AtOnce => ["at once", "de inmediato", "imediatamente", "genast", "तुरंत", "すぐに"],
    ActionCommand => ["Command: one argument per line, the program first (no shell)", "Comando: un argumento por línea, primero el programa (sin shell)", "Comando: um argumento por linha, primeiro o programa (sem shell)", "Kommando: ett argument per rad, programmet först (inget skal)", "कमांड: हर पंक्ति में एक आर्ग्युमेंट, पहले प्रोग्राम (बिना शेल)", "コマンド：1行に1つの引数、最初にプログラム（シェルなし）"],
    ActionUrl => ["Or an HTTP call: URL", "O una llamada HTTP: URL", "Ou uma chamada HTTP: URL", "Eller ett HTTP-anrop: URL", "या HTTP कॉल: URL", "または HTTP 呼び出し：URL"],
    ActionMethod => ["Method", "Método", "Método", "Metod", "मेथड", "メソッド"],
    ActionHeaders => ["Headers: one “Name: value” per line (values are hidden once saved)", "Cabeceras: una «Nombre: valor» por línea (los valores se ocultan al guardar)", "Cabeçalhos: um “Nome: valor” por linha (os valores ficam ocultos ao salvar)", "Rubriker: en ”Namn: värde” per rad (värdena döljs när de sparats)", "हेडर: हर पंक्ति में एक “Name: value” (सहेजने के बाद मान छिपे रहते हैं)", "ヘッダー：1行に1つの「Name: value」（保存後は値を表示しません）"],
    ActionBody => ["Body (JSON): {{server_id}}, {{server_name}}, {{event}}, {{addresses}} and {{since}} are filled in", "Cuerpo (JSON): se rellenan {{server_id}}, {{server_name}}, {{event}}, {{addresses}} y {{since}}", "Corpo (JSON): {{server_id}}, {{server_name}}, {{event}}, {{addresses}} e {{since}} são preenchidos", "Brödtext (JSON): {{server_id}}, {{server_name}}, {{event}}, {{addresses}} och {{since}} fylls i", "बॉडी (JSON): {{server_id}}, {{server_name}}, {{event}}, {{addresses}} और {{since}} भरे जाते हैं", "本文（JSON）：{{server_id}}、{{server_name}}、{{event}}、{{addresses}}、{{since}} が埋め込まれます"],
    /// The password asked again before a change that arms actions or hands out access.
    YourPassword => ["Your password (to confirm)", "Tu contraseña (para confirmar)", "Sua senha (para confirmar)", "Ditt lösenord (för att bekräfta)", "आपका पासवर्ड (पुष्टि के लिए)", "パスワード（確認のため）"],
    TokenScopeLabel => ["Scope", "Alcance", "Escopo", "Behörighet", "दायरा", "権限"],
    AddAction => ["Add action", "Añadir acción", "Adicionar ação", "Lägg till åtgärd", "क्रिया जोड़ें", "アクションを追加"],
    DeleteAction => ["Delete", "Eliminar", "Excluir", "Ta bort", "हटाएँ", "削除"],
    EventCleared => ["Block cleared", "Bloqueo levantado", "Bloqueio removido", "Blockering hävd", "ब्लॉक हटा", "ブロック解除"],
    ActionRuns => ["Action runs", "Ejecuciones de acciones", "Execuções de ações", "Körda åtgärder", "क्रियाओं के रन", "アクションの実行履歴"],
    NoActionRuns => ["No action has run for this server.", "Ninguna acción se ha ejecutado para este servidor.", "Nenhuma ação foi executada para este servidor.", "Ingen åtgärd har körts för den här servern.", "इस सर्वर के लिए कोई क्रिया नहीं चली है।", "このサーバーで実行されたアクションはありません。"],
    RunOk => ["Succeeded", "Correcta", "Concluída", "Lyckades", "सफल", "成功"],
    RunFailed => ["Failed", "Fallida", "Falhou", "Misslyckades", "विफल", "失敗"],
    RunRetrying => ["Failed, will retry", "Fallida, se reintentará", "Falhou, será repetida", "Misslyckades, försöker igen", "विफल, फिर से कोशिश होगी", "失敗（再試行予定）"],
    /// A run that was running when its panel stopped.
    RunInterrupted => ["Interrupted: the panel stopped while it ran; not started again by itself", "Interrumpida: el panel se detuvo mientras se ejecutaba; no se vuelve a iniciar sola", "Interrompida: o painel parou durante a execução; não é iniciada de novo sozinha", "Avbruten: panelen stoppades medan den kördes; startas inte om av sig själv", "बाधित: चलते समय पैनल रुक गया; यह अपने आप फिर शुरू नहीं होगी", "中断：実行中にパネルが停止しました。自動では再実行されません"],
    RunAgain => ["Run again", "Ejecutar de nuevo", "Executar de novo", "Kör igen", "फिर से चलाएँ", "再実行"],
    RunRunning => ["Running", "En curso", "Em execução", "Körs", "चल रही है", "実行中"],
    /// The public status page (§6).
    ServiceStatus => ["Service status", "Estado del servicio", "Status do serviço", "Driftstatus", "सेवा की स्थिति", "サービスの稼働状況"],
    StateOperational => ["Operational", "Operativo", "Operacional", "I drift", "चालू", "正常稼働"],
    StateDegraded => ["Degraded", "Degradado", "Degradado", "Försämrad", "प्रदर्शन में गिरावट", "一部機能低下"],
    StatePartialOutage => ["Partial outage", "Interrupción parcial", "Interrupção parcial", "Delvis avbrott", "आंशिक व्यवधान", "部分的な障害"],
    OverallOperational => ["All routes are operational.", "Todas las rutas están operativas.", "Todas as rotas estão operacionais.", "Alla rutter är i drift.", "सभी रूट चालू हैं।", "すべてのルートが正常に稼働しています。"],
    OverallMaintenance => ["Maintenance is in progress.", "Hay un mantenimiento en curso.", "Há uma manutenção em andamento.", "Underhåll pågår.", "रखरखाव चल रहा है।", "メンテナンスを実施中です。"],
    OverallDegraded => ["Some routes are degraded.", "Algunas rutas están degradadas.", "Algumas rotas estão degradadas.", "Några rutter är försämrade.", "कुछ रूटों के प्रदर्शन में गिरावट है।", "一部のルートで機能が低下しています。"],
    OverallPartialOutage => ["Some routes have a partial outage.", "Algunas rutas sufren una interrupción parcial.", "Algumas rotas estão com interrupção parcial.", "Några rutter har ett delvis avbrott.", "कुछ रूटों में आंशिक व्यवधान है।", "一部のルートで部分的な障害が発生しています。"],
    PlannedMaintenance => ["Planned maintenance", "Mantenimiento programado", "Manutenção programada", "Planerat underhåll", "निर्धारित रखरखाव", "予定されたメンテナンス"],
    Last30Days => ["Last 30 days", "Últimos 30 días", "Últimos 30 dias", "Senaste 30 dagarna", "पिछले 30 दिन", "過去30日間"],
    NoDataDay => ["No data", "Sin datos", "Sem dados", "Inga data", "कोई डेटा नहीं", "データなし"],
    NoRoutesPublic => ["No routes to show yet.", "Todavía no hay rutas que mostrar.", "Ainda não há rotas para mostrar.", "Inga rutter att visa än.", "दिखाने के लिए अभी कोई रूट नहीं है।", "表示するルートはまだありません。"],
    TimesInUtc => ["Times are in UTC.", "Las horas están en UTC.", "Os horários estão em UTC.", "Tiderna anges i UTC.", "समय UTC में दिए गए हैं।", "時刻はUTCで表示しています。"],
    UptimeHelp => [
        "Uptime is the share of time in rotation (not unavailable, unreachable or blocked). Time in maintenance is counted apart.",
        "La disponibilidad es la proporción del tiempo en rotación, es decir, fuera de «Servidor no disponible», «Inaccesible desde tus servidores» y «Dirección bloqueada». El tiempo en mantenimiento se cuenta aparte.",
        "A disponibilidade é a fração do tempo em rotação (nem indisponível, nem inacessível, nem bloqueado). O tempo em manutenção é contado à parte.",
        "Drifttid är andelen tid i rotation, det vill säga utan ”Servern är inte tillgänglig”, ”Onåbar från dina servrar” eller ”Adressen är blockerad”. Tid under underhåll räknas för sig.",
        "उपलब्धता रोटेशन में बिताए गए समय का हिस्सा है (जब स्थिति \"सर्वर उपलब्ध नहीं\", \"आपके सर्वरों से पहुँच योग्य नहीं\" या \"पता ब्लॉक है\" न हो)। रखरखाव का समय अलग गिना जाता है।",
        "稼働率は、ローテーション中だった時間の割合です（利用不可・到達不可・ブロックの期間を除く）。メンテナンスの時間は別に数えます。",
    ],
    /// Uptime window: the last 24 hours.
    Window24h => ["24 h", "24 h", "24 h", "24 h", "24 घंटे", "24時間"],
    /// Uptime window: the last 7 days.
    Window7d => ["7 d", "7 d", "7 d", "7 d", "7 दिन", "7日間"],
    /// Uptime window: the last 30 days.
    Window30d => ["30 d", "30 d", "30 d", "30 d", "30 दिन", "30日間"],
    NoStatusChangeYet => [
        "No status change recorded yet.",
        "Aún no se ha registrado ningún cambio de estado.",
        "Nenhuma mudança de status registrada ainda.",
        "Inga statusändringar registrerade än.",
        "अभी तक कोई स्थिति परिवर्तन दर्ज नहीं हुआ।",
        "記録されたステータス変更はまだありません。",
    ],

    // ── Chart captions ──────────────────────────────────────────────────
    /// The left end of a 24 h sparkline.
    ChartStart => ["24 h ago", "hace 24 h", "há 24 h", "för 24 h sedan", "24 घंटे पहले", "24時間前"],
    /// The right end of a sparkline.
    ChartNow => ["now", "ahora", "agora", "nu", "अभी", "現在"],

    // ── Settings ────────────────────────────────────────────────────────
    SettingsSaved => [
        "Saved. The engine uses the new parameters from now on.",
        "Guardado. El motor usa los nuevos parámetros a partir de ahora.",
        "Salvo. O mecanismo usa os novos parâmetros a partir de agora.",
        "Sparat. Motorn använder de nya parametrarna från och med nu.",
        "सहेजा गया। इंजन अब से नए पैरामीटर इस्तेमाल करेगा।",
        "保存しました。今後、エンジンは新しいパラメーターを使用します。",
    ],
    LoadingSettings => ["Loading settings…", "Cargando la configuración…", "Carregando as configurações…", "Läser in inställningar…", "सेटिंग्स लोड हो रही हैं…", "設定を読み込み中…"],
    VerdictParameters => ["Verdict parameters", "Parámetros del veredicto", "Parâmetros do veredito", "Bedömningsparametrar", "निर्णय पैरामीटर", "判定パラメーター"],
    ReportInterval => ["Report interval (seconds)", "Intervalo de informes (segundos)", "Intervalo de relatórios (segundos)", "Rapportintervall (sekunder)", "रिपोर्ट अंतराल (सेकंड)", "レポート間隔（秒）"],
    ReportIntervalHelp => [
        "How often each agent self-checks and reports (default 60).",
        "Cada cuánto se autocomprueba e informa cada agente (predeterminado: 60).",
        "Com que frequência cada agente se autoverifica e envia relatórios (padrão: 60).",
        "Hur ofta varje agent gör en självkontroll och rapporterar (standard 60).",
        "हर एजेंट कितनी बार स्व-जाँच करके रिपोर्ट भेजता है (डिफ़ॉल्ट 60)।",
        "各エージェントがセルフチェックして報告する間隔（既定値 60）。",
    ],
    ProbeInterval => ["Probe interval (seconds)", "Intervalo de sondeo (segundos)", "Intervalo de sondagem (segundos)", "Sonderingsintervall (sekunder)", "जाँच अंतराल (सेकंड)", "プローブ間隔（秒）"],
    ProbeIntervalHelp => [
        "How often each agent knocks on every other server's entry points, with jitter (default 30).",
        "Cada cuánto llama cada agente a los puntos de entrada de todos los demás servidores, con variación aleatoria (predeterminado: 30).",
        "Com que frequência cada agente testa os pontos de entrada de todos os outros servidores, com variação aleatória (padrão: 30).",
        "Hur ofta varje agent knackar på alla andra servrars ingångspunkter, med slumpmässig variation (standard 30).",
        "हर एजेंट कितनी बार बाकी सभी सर्वरों के प्रवेश बिंदुओं को जाँचता है, थोड़े यादृच्छिक अंतर के साथ (डिफ़ॉल्ट 30)।",
        "各エージェントが他のすべてのサーバーの接続ポイントを試す間隔。多少のばらつきがあります（既定値 30）。",
    ],
    ProbeTimeout => ["Probe timeout (seconds)", "Tiempo de espera del sondeo (segundos)", "Tempo limite da sondagem (segundos)", "Tidsgräns för sondering (sekunder)", "जाँच टाइमआउट (सेकंड)", "プローブのタイムアウト（秒）"],
    ProbeTimeoutHelp => [
        "How long a TCP connect plus TLS handshake may take (default 5).",
        "Cuánto pueden tardar la conexión TCP y el handshake TLS (predeterminado: 5).",
        "Quanto tempo a conexão TCP mais o handshake TLS podem levar (padrão: 5).",
        "Hur lång tid en TCP-anslutning plus TLS-handskakning får ta (standard 5).",
        "एक TCP कनेक्शन और TLS हैंडशेक में अधिकतम कितना समय लग सकता है (डिफ़ॉल्ट 5)।",
        "TCP 接続と TLS ハンドシェイクにかけてよい時間（既定値 5）。",
    ],
    StaleAfter => ["Stale after (seconds)", "Desactualizado tras (segundos)", "Desatualizado após (segundos)", "Inaktuell efter (sekunder)", "पुराना माने जाने की अवधि (सेकंड)", "古いとみなすまで（秒）"],
    StaleAfterHelp => [
        "A server whose last report is older is \"No data from server\", and its evidence stops counting (default 180 = 3 report intervals).",
        "Un servidor cuyo último informe sea más antiguo pasa a «Sin datos del servidor» y sus datos dejan de contar (predeterminado: 180 = 3 intervalos de informe).",
        "Um servidor cujo último relatório seja mais antigo fica como “Sem dados do servidor”, e suas evidências deixam de contar (padrão: 180 = 3 intervalos de relatório).",
        "En server vars senaste rapport är äldre får ”Ingen data från servern”, och dess underlag slutar räknas (standard 180 = 3 rapportintervall).",
        "जिस सर्वर की अंतिम रिपोर्ट इससे पुरानी हो, वह \"सर्वर से कोई डेटा नहीं\" माना जाता है और उसके साक्ष्य गिने नहीं जाते (डिफ़ॉल्ट 180 = 3 रिपोर्ट अंतराल)।",
        "最終レポートがこれより古いサーバーは「サーバーからのデータがありません」となり、そのデータは考慮されなくなります（既定値 180 = レポート間隔 3回分）。",
    ],
    FailureStreak => ["Failure streak", "Racha de fallos", "Sequência de falhas", "Felsvit", "लगातार विफलताएँ", "連続失敗回数"],
    FailureStreakHelp => [
        "Consecutive failed probes before a pair's failure counts (default 3): one failed knock means nothing.",
        "Sondeos fallidos consecutivos necesarios para que cuente el fallo de un par (predeterminado: 3): un solo intento fallido no significa nada.",
        "Sondagens consecutivas com falha até que a falha de um par conte (padrão: 3): uma única tentativa malsucedida não significa nada.",
        "Antal misslyckade sonderingar i följd innan ett pars fel räknas (standard 3): en enstaka misslyckad knackning betyder ingenting.",
        "किसी जोड़ी की विफलता गिने जाने से पहले लगातार विफल जाँचों की संख्या (डिफ़ॉल्ट 3): एक बार की विफलता का कोई अर्थ नहीं।",
        "ペアの失敗として数えるまでの連続プローブ失敗回数（既定値 3）。1回の失敗だけでは意味を持ちません。",
    ],
    Quorum => ["Quorum", "Quórum", "Quórum", "Kvorum", "कोरम", "定足数"],
    QuorumHelp => [
        "Reliable witnesses that must fail to reach a server for \"Unreachable from your servers\" (default 2).",
        "Testigos fiables que deben fallar al intentar alcanzar un servidor para que pase a «Inaccesible desde tus servidores» (predeterminado: 2).",
        "Testemunhas confiáveis que precisam falhar ao tentar alcançar um servidor para que ele fique como “Inacessível a partir dos seus servidores” (padrão: 2).",
        "Antal tillförlitliga vittnen som måste misslyckas med att nå en server för ”Onåbar från dina servrar” (standard 2).",
        "\"आपके सर्वरों से पहुँच योग्य नहीं\" के लिए कितने विश्वसनीय गवाहों का किसी सर्वर तक पहुँचने में विफल होना ज़रूरी है (डिफ़ॉल्ट 2)।",
        "「お使いのサーバーから到達できません」と判定するために、サーバーへの到達に失敗する必要がある信頼できる証人の数（既定値 2）。",
    ],
    UnreliableFraction => ["Unreliable fraction", "Fracción de no fiabilidad", "Fração de não confiabilidade", "Opålitlighetsandel", "अविश्वसनीयता अनुपात", "信頼できないとみなす割合"],
    UnreliableFractionHelp => [
        "A witness failing to reach at least max(2, this × n) servers is unreliable and its votes are ignored (0 < f ≤ 1, default 0.5).",
        "Un testigo que no alcanza al menos max(2, este valor × n) servidores es poco fiable y sus votos se ignoran (0 < f ≤ 1, predeterminado: 0,5).",
        "Uma testemunha que não alcança pelo menos max(2, este valor × n) servidores não é confiável e seus votos são ignorados (0 < f ≤ 1, padrão: 0,5).",
        "Ett vittne som inte når minst max(2, detta värde × n) servrar är opålitligt och dess röster ignoreras (0 < f ≤ 1, standard 0,5).",
        "जो गवाह कम से कम max(2, यह मान × n) सर्वरों तक नहीं पहुँच पाता, वह अविश्वसनीय है और उसके वोट अनदेखे किए जाते हैं (0 < f ≤ 1, डिफ़ॉल्ट 0.5)।",
        "max(2, この値 × n) 台以上のサーバーに到達できない証人は信頼できないとみなされ、その投票は破棄されます（0 < f ≤ 1、既定値 0.5）。",
    ],
    WitnessSets => ["Witness sets", "Conjuntos de testigos", "Conjuntos de testemunhas", "Vittnesgrupper", "गवाह समूह", "証人セット"],
    WitnessSetsIntro => [
        "This fleet is beyond the witness set threshold: each server is watched by its witness set, from as many countries and routes as the fleet has, and one witness is replaced at each rotation. A symbol says what that witness sees of the server now; servers marked as confirming were asked, outside the set, to confirm a starting failure streak.",
        "Esta flota supera el umbral de conjuntos de testigos: a cada servidor lo vigila su conjunto de testigos, de tantos países y rutas como tenga la flota, y en cada rotación se sustituye un testigo. Un símbolo indica lo que ese testigo ve ahora del servidor; los servidores marcados como confirmando se pidieron, fuera del conjunto, para confirmar una racha de fallos que empieza.",
        "Esta frota passou do limite de conjuntos de testemunhas: cada servidor é vigiado pelo seu conjunto de testemunhas, de tantos países e rotas quanto a frota tiver, e a cada rotação uma testemunha é substituída. Um símbolo mostra o que essa testemunha vê agora do servidor; os servidores marcados como confirmando foram chamados, fora do conjunto, para confirmar uma sequência de falhas que começa.",
        "Flottan är över gränsen för vittnesgrupper: varje server bevakas av sin vittnesgrupp, från så många länder och rutter som flottan har, och ett vittne byts ut vid varje rotation. En symbol visar vad vittnet ser av servern nu; servrar markerade som bekräftande har, utanför gruppen, ombetts bekräfta en felsvit som börjar.",
        "यह बेड़ा गवाह समूह की सीमा से बड़ा है: हर सर्वर पर उसका गवाह समूह नज़र रखता है, बेड़े में जितने हो सकें उतने देशों और रूटों से, और हर बदलाव में एक गवाह बदला जाता है। चिह्न बताता है कि वह गवाह अभी सर्वर को कैसा देखता है; जिन सर्वरों पर पुष्टि लिखा है, उनसे समूह के बाहर से, शुरू हो रही लगातार नाकामियों की पुष्टि करने को कहा गया है।",
        "このフリートは証人セットのしきい値を超えています。各サーバーは、フリートにある限り異なる国とルートから選ばれた証人セットが監視し、入れ替えのたびに証人が1人交代します。記号はその証人がいまサーバーをどう見ているかを示します。「確認中」のサーバーは、始まった連続失敗を確かめるためにセットの外から呼ばれたものです。",
    ],
    SetWitnesses => ["Witnesses", "Testigos", "Testemunhas", "Vittnen", "गवाह", "証人"],
    LastRotated => ["Last rotated", "Última rotación", "Última rotação", "Senast roterad", "पिछला बदलाव", "前回の入れ替え"],
    Confirming => ["confirming", "confirmando", "confirmando", "bekräftar", "पुष्टि", "確認中"],
    WitnessSetThreshold => ["Witness set threshold", "Umbral de conjuntos de testigos", "Limite de conjuntos de testemunhas", "Gräns för vittnesgrupper", "गवाह समूह की सीमा", "証人セットのしきい値"],
    WitnessSetThresholdHelp => [
        "Up to this many servers, every server probes every other; beyond it, each server is watched by its witness set (default 64).",
        "Hasta este número de servidores, cada servidor sondea a todos los demás; por encima, a cada servidor lo vigila su conjunto de testigos (predeterminado: 64).",
        "Até este número de servidores, cada servidor sonda todos os outros; acima dele, cada servidor é vigiado pelo seu conjunto de testemunhas (padrão: 64).",
        "Upp till så här många servrar sonderar varje server alla andra; därutöver bevakas varje server av sin vittnesgrupp (standard 64).",
        "इतने सर्वरों तक हर सर्वर बाकी सभी की जाँच करता है; इससे ज़्यादा होने पर हर सर्वर पर उसका गवाह समूह नज़र रखता है (डिफ़ॉल्ट 64)।",
        "サーバー数がこの値以下なら全サーバーが互いをプローブし、超えると各サーバーはその証人セットが監視します（既定値 64）。",
    ],
    WitnessSetSize => ["Witnesses per set", "Testigos por conjunto", "Testemunhas por conjunto", "Vittnen per grupp", "हर समूह में गवाह", "セットあたりの証人数"],
    WitnessSetSizeHelp => [
        "How many servers, from as many countries and routes as the fleet has, watch each server beyond the threshold (1 to 32, default 12).",
        "Cuántos servidores, de tantos países y rutas como tenga la flota, vigilan cada servidor por encima del umbral (de 1 a 32, predeterminado: 12).",
        "Quantos servidores, de tantos países e rotas quanto a frota tiver, vigiam cada servidor acima do limite (de 1 a 32, padrão: 12).",
        "Hur många servrar, från så många länder och rutter som flottan har, som bevakar varje server över gränsen (1 till 32, standard 12).",
        "सीमा से ऊपर हर सर्वर पर कितने सर्वर नज़र रखते हैं, बेड़े में जितने हो सकें उतने देशों और रूटों से (1 से 32, डिफ़ॉल्ट 12)।",
        "しきい値を超えたとき各サーバーを監視するサーバーの数。フリートにある限り異なる国とルートから選ばれます（1〜32、既定値 12）。",
    ],
    WitnessRotation => ["Witness rotation", "Rotación de testigos", "Rotação de testemunhas", "Vittnesrotation", "गवाहों का बदलाव", "証人の入れ替え"],
    WitnessRotationHelp => [
        "Seconds between two rotations of a set: one witness is replaced each time, so no fixed set hides a fault for long (default 3600).",
        "Segundos entre dos rotaciones de un conjunto: cada vez se sustituye un testigo, así ningún conjunto fijo oculta un fallo por mucho tiempo (predeterminado: 3600).",
        "Segundos entre duas rotações de um conjunto: a cada vez uma testemunha é substituída, assim nenhum conjunto fixo esconde uma falha por muito tempo (padrão: 3600).",
        "Sekunder mellan två rotationer av en grupp: ett vittne byts ut varje gång, så ingen fast grupp döljer ett fel länge (standard 3600).",
        "किसी समूह के दो बदलावों के बीच सेकंड: हर बार एक गवाह बदला जाता है, ताकि कोई तय समूह किसी खराबी को लंबे समय तक छिपा न सके (डिफ़ॉल्ट 3600)।",
        "セットを入れ替える間隔（秒）。毎回証人を1人交代させるので、固定されたセットが障害を長く隠すことはありません（既定値 3600）。",
    ],
    SaveParameters => ["Save parameters", "Guardar parámetros", "Salvar parâmetros", "Spara parametrar", "पैरामीटर सहेजें", "パラメーターを保存"],
    PasswordChanged => [
        "Password changed. Your other sessions have been signed out.",
        "Contraseña cambiada. Se han cerrado tus otras sesiones.",
        "Senha alterada. Suas outras sessões foram encerradas.",
        "Lösenordet har ändrats. Dina andra sessioner har loggats ut.",
        "पासवर्ड बदल दिया गया। आपके अन्य सत्र साइन आउट कर दिए गए हैं।",
        "パスワードを変更しました。他のセッションはサインアウトされました。",
    ],
    OperatorAccount => ["Operator account", "Cuenta de operador", "Conta de operador", "Operatörskonto", "ऑपरेटर खाता", "オペレーターアカウント"],
    CurrentPassword => ["Current password", "Contraseña actual", "Senha atual", "Nuvarande lösenord", "वर्तमान पासवर्ड", "現在のパスワード"],
    NewPassword => ["New password", "Nueva contraseña", "Nova senha", "Nytt lösenord", "नया पासवर्ड", "新しいパスワード"],
    RepeatNewPassword => ["Repeat the new password", "Repite la nueva contraseña", "Repita a nova senha", "Upprepa det nya lösenordet", "नया पासवर्ड दोबारा लिखें", "新しいパスワード（確認）"],
    ChangePassword => ["Change password", "Cambiar contraseña", "Alterar senha", "Byt lösenord", "पासवर्ड बदलें", "パスワードを変更"],
    /// `aria-label` of a freshly created token's secret.
    NewApiToken => ["New API token", "Nuevo token de API", "Novo token de API", "Ny API-token", "नया API टोकन", "新しい API トークン"],
    ApiTokens => ["API tokens", "Tokens de API", "Tokens de API", "API-tokens", "API टोकन", "API トークン"],
    /// What precedes the `Authorization: Bearer <token>` header in the help.
    ApiTokensHelpBefore => [
        "Scripts call the automation API with ",
        "Los scripts llaman a la API de automatización con ",
        "Os scripts chamam a API de automação com ",
        "Skript anropar automations-API:t med ",
        "स्क्रिप्ट ऑटोमेशन API को ",
        "スクリプトは ",
    ],
    /// What follows the `Authorization: Bearer <token>` header in the help.
    ApiTokensHelpAfter => [
        ". Only a hash of each token is kept.",
        ". Solo se guarda un hash de cada token.",
        ". Apenas um hash de cada token é armazenado.",
        ". Endast en hash av varje token sparas.",
        " के साथ कॉल करती हैं। हर टोकन का केवल हैश रखा जाता है।",
        " を付けて自動化 API を呼び出します。保存されるのは各トークンのハッシュのみです。",
    ],
    NoApiTokens => [
        "No API tokens: the automation API refuses every request.",
        "No hay tokens de API: la API de automatización rechaza todas las solicitudes.",
        "Nenhum token de API: a API de automação recusa todas as solicitações.",
        "Inga API-tokens: automations-API:t avvisar alla förfrågningar.",
        "कोई API टोकन नहीं: ऑटोमेशन API हर अनुरोध अस्वीकार करता है।",
        "API トークンがありません。自動化 API はすべてのリクエストを拒否します。",
    ],
    Revoke => ["Revoke", "Revocar", "Revogar", "Återkalla", "रद्द करें", "失効させる"],
    NewTokenName => ["New token name", "Nombre del nuevo token", "Nome do novo token", "Namn på ny token", "नए टोकन का नाम", "新しいトークンの名前"],
    CreateToken => ["Create token", "Crear token", "Criar token", "Skapa token", "टोकन बनाएँ", "トークンを作成"],
}

impl Lang {
    /// "address 2, SNI 1": how many blocks of each kind.
    pub fn kind_counts(self, kinds: &[(meshwatch::verdict::BlockKind, u32)]) -> String {
        use meshwatch::verdict::BlockKind;
        let parts: Vec<String> = kinds
            .iter()
            .map(|(kind, n)| {
                let noun = self.ui(match kind {
                    BlockKind::Ip => Ui::KindIpNoun,
                    BlockKind::Sni => Ui::KindSniNoun,
                    BlockKind::Protocol => Ui::KindProtocolNoun,
                    BlockKind::Throttled => Ui::KindThrottledNoun,
                });
                format!("{noun} {}", self.number((*n).into()))
            })
            .collect();
        // A tally, not a sentence: no "and".
        parts.join(if self == Lang::Ja { "、" } else { ", " })
    }

    /// The short name of a block kind (§8).
    pub fn block_kind(self, kind: meshwatch::verdict::BlockKind) -> &'static str {
        use meshwatch::verdict::BlockKind;
        self.ui(match kind {
            BlockKind::Ip => Ui::KindIp,
            BlockKind::Sni => Ui::KindSni,
            BlockKind::Protocol => Ui::KindProtocol,
            BlockKind::Throttled => Ui::KindThrottled,
        })
    }

    /// The position of this language in [`Lang::ALL`] (and in each row of
    /// the catalogue).
    pub(super) fn index(self) -> usize {
        match self {
            Lang::En => 0,
            Lang::Es => 1,
            Lang::Pt => 2,
            Lang::Sv => 3,
            Lang::Hi => 4,
            Lang::Ja => 5,
        }
    }

    // ── Frame and shared ────────────────────────────────────────────────

    /// How long ago `from` was, seen at `now`: "just now", "42 s ago",
    /// "5 min ago", "3 h ago", "2 d ago".
    pub fn age(self, from: DateTime<Utc>, now: DateTime<Utc>) -> String {
        let s = (now - from).num_seconds().max(0);
        // Buckets: seconds below 2 min, minutes below 2 h, hours below
        // 2 days, then days (so every plural is really plural).
        let (n, unit) = match s {
            0..=4 => (0, 0),
            5..=119 => (s, 1),
            120..=7199 => (s / 60, 2),
            7200..=172_799 => (s / 3600, 3),
            _ => (s / 86_400, 4),
        };
        match (self, unit) {
            (Lang::En, 0) => "just now".into(),
            (Lang::En, 1) => format!("{n} s ago"),
            (Lang::En, 2) => format!("{n} min ago"),
            (Lang::En, 3) => format!("{n} h ago"),
            (Lang::En, _) => self.days_ago(n as u64),
            (Lang::Es, 0) => "ahora mismo".into(),
            (Lang::Es, 1) => format!("hace {n} s"),
            (Lang::Es, 2) => format!("hace {n} min"),
            (Lang::Es, 3) => format!("hace {n} h"),
            (Lang::Es, _) => self.days_ago(n as u64),
            (Lang::Pt, 0) => "agora mesmo".into(),
            (Lang::Pt, 1) => format!("há {n} s"),
            (Lang::Pt, 2) => format!("há {n} min"),
            (Lang::Pt, 3) => format!("há {n} h"),
            (Lang::Pt, _) => self.days_ago(n as u64),
            (Lang::Sv, 0) => "nyss".into(),
            (Lang::Sv, 1) => format!("för {n} s sedan"),
            (Lang::Sv, 2) => format!("för {n} min sedan"),
            (Lang::Sv, 3) => format!("för {n} h sedan"),
            (Lang::Sv, _) => self.days_ago(n as u64),
            (Lang::Hi, 0) => "अभी-अभी".into(),
            (Lang::Hi, 1) => format!("{n} सेकंड पहले"),
            (Lang::Hi, 2) => format!("{n} मिनट पहले"),
            (Lang::Hi, 3) => format!("{n} घंटे पहले"),
            (Lang::Hi, _) => self.days_ago(n as u64),
            (Lang::Ja, 0) => "たった今".into(),
            (Lang::Ja, 1) => format!("{n}秒前"),
            (Lang::Ja, 2) => format!("{n}分前"),
            (Lang::Ja, 3) => format!("{n}時間前"),
            (Lang::Ja, _) => self.days_ago(n as u64),
        }
    }

    /// A span of time to the minute, its largest two units: "5 min",
    /// "3 h 2 min", "1 d 2 h" (the units' CLDR short forms; 93 784 s is
    /// "1日2時間" in Japanese).
    pub fn duration(self, seconds: u64) -> String {
        let (d, h, m) = (
            seconds / 86_400,
            seconds % 86_400 / 3600,
            seconds % 3600 / 60,
        );
        let d = self.number(d);
        match (self, d.as_str(), h) {
            (Lang::Hi, "0", 0) => format!("{m} मिनट"),
            (Lang::Hi, "0", h) => format!("{h} घंटे {m} मिनट"),
            (Lang::Hi, d, h) => format!("{d} दिन {h} घंटे"),
            (Lang::Ja, "0", 0) => format!("{m}分"),
            (Lang::Ja, "0", h) => format!("{h}時間{m}分"),
            (Lang::Ja, d, h) => format!("{d}日{h}時間"),
            (_, "0", 0) => format!("{m} min"),
            (_, "0", h) => format!("{h} h {m} min"),
            (_, d, h) => format!("{d} d {h} h"),
        }
    }

    /// Part of a whole, both already formatted: "1.5 GiB of 4.0 GiB".
    pub fn used_of_total(self, used: &str, total: &str) -> String {
        match self {
            Lang::En => format!("{used} of {total}"),
            Lang::Es => format!("{used} de {total}"),
            Lang::Pt => format!("{used} de {total}"),
            Lang::Sv => format!("{used} av {total}"),
            Lang::Hi => format!("{total} में से {used}"),
            Lang::Ja => format!("{used} / {total}"),
        }
    }

    // ── Overview ────────────────────────────────────────────────────────

    /// Which replica served the page and which one evaluates the verdicts
    /// (several replicas on one PostgreSQL database).
    pub fn replica_roles(self, this: &str, evaluator: Option<&str>) -> String {
        match (self, evaluator) {
            (Lang::En, Some(e)) if e == this => {
                format!("This panel is replica {this}, the one that evaluates the verdicts.")
            }
            (Lang::En, Some(e)) => {
                format!("This panel is replica {this}; replica {e} evaluates the verdicts.")
            }
            (Lang::En, None) => format!("This panel is replica {this}; no replica evaluates yet."),
            (Lang::Es, Some(e)) if e == this => {
                format!("Este panel es la réplica {this}, la que evalúa los veredictos.")
            }
            (Lang::Es, Some(e)) => {
                format!("Este panel es la réplica {this}; la réplica {e} evalúa los veredictos.")
            }
            (Lang::Es, None) => {
                format!("Este panel es la réplica {this}; aún no evalúa ninguna réplica.")
            }
            (Lang::Pt, Some(e)) if e == this => {
                format!("Este painel é a réplica {this}, a que avalia os veredictos.")
            }
            (Lang::Pt, Some(e)) => {
                format!("Este painel é a réplica {this}; a réplica {e} avalia os veredictos.")
            }
            (Lang::Pt, None) => {
                format!("Este painel é a réplica {this}; nenhuma réplica avalia ainda.")
            }
            (Lang::Sv, Some(e)) if e == this => {
                format!("Den här panelen är replika {this}, den som gör bedömningarna.")
            }
            (Lang::Sv, Some(e)) => {
                format!("Den här panelen är replika {this}; replika {e} gör bedömningarna.")
            }
            (Lang::Sv, None) => {
                format!("Den här panelen är replika {this}; ingen replika gör bedömningarna än.")
            }
            (Lang::Hi, Some(e)) if e == this => {
                format!("यह पैनल रेप्लिका {this} है, वही जो निर्णयों का मूल्यांकन करती है।")
            }
            (Lang::Hi, Some(e)) => {
                format!("यह पैनल रेप्लिका {this} है; निर्णयों का मूल्यांकन रेप्लिका {e} करती है।")
            }
            (Lang::Hi, None) => {
                format!("यह पैनल रेप्लिका {this} है; अभी कोई रेप्लिका मूल्यांकन नहीं कर रही।")
            }
            (Lang::Ja, Some(e)) if e == this => {
                format!("このパネルはレプリカ {this} で、判定を行っているレプリカです。")
            }
            (Lang::Ja, Some(e)) => {
                format!("このパネルはレプリカ {this} です。判定はレプリカ {e} が行っています。")
            }
            (Lang::Ja, None) => format!(
                "このパネルはレプリカ {this} です。判定を行っているレプリカはまだありません。"
            ),
        }
    }

    // ── Routes ──────────────────────────────────────────────────────────

    /// The warning of a route whose servers are all out of rotation.
    pub fn route_serves_best_available(self, name: &str, country: &str) -> String {
        match self {
            Lang::En => format!("Every server is out of rotation: subscriptions serve the best available one, {name} ({country})."),
            Lang::Es => format!("Todos los servidores están fuera de rotación: las suscripciones sirven el mejor disponible, {name} ({country})."),
            Lang::Pt => format!("Todos os servidores estão fora de rotação: as assinaturas servem o melhor disponível, {name} ({country})."),
            Lang::Sv => format!("Alla servrar är ur rotation: prenumerationerna levererar den bästa tillgängliga, {name} ({country})."),
            Lang::Hi => format!("सभी सर्वर रोटेशन से बाहर हैं: सब्सक्रिप्शन सबसे अच्छा उपलब्ध सर्वर देते हैं, {name} ({country})।"),
            Lang::Ja => format!("すべてのサーバーがローテーション外です。サブスクリプションは利用可能な最善のサーバー {name}（{country}）を提供します。"),
        }
    }

    // ── Mesh ────────────────────────────────────────────────────────────

    /// The legend entry of a failing (not yet sustained) cell.
    pub fn failing_streak(self, sustained_at: u32) -> String {
        let n = sustained_at;
        match self {
            Lang::En => format!("failing streak (sustained at {n})"),
            Lang::Es => format!("racha de fallos (sostenida a partir de {n})"),
            Lang::Pt => format!("sequência de falhas (persistente a partir de {n})"),
            Lang::Sv => format!("felsvit (ihållande från {n})"),
            Lang::Hi => format!("लगातार नाकामियों की लड़ी ({n} पर लगातार मानी जाती है)"),
            Lang::Ja => format!("連続失敗（{n}回で継続とみなす）"),
        }
    }

    // ── Servers and users lists ─────────────────────────────────────────

    /// "Page 2 of 5".
    pub fn page_of(self, page: u32, pages: u32) -> String {
        match self {
            Lang::En => format!("Page {page} of {pages}"),
            Lang::Es => format!("Página {page} de {pages}"),
            Lang::Pt => format!("Página {page} de {pages}"),
            Lang::Sv => format!("Sida {page} av {pages}"),
            Lang::Hi => format!("{pages} में से पृष्ठ {page}"),
            Lang::Ja => format!("{page} / {pages} ページ"),
        }
    }

    // ── User card ───────────────────────────────────────────────────────

    /// The heading of one of the user's routes: "Route germany".
    pub fn route_heading(self, route: &meshwatch::RouteId) -> String {
        match self {
            Lang::En => format!("Route {route}"),
            Lang::Es => format!("Ruta {route}"),
            Lang::Pt => format!("Rota {route}"),
            Lang::Sv => format!("Rutt {route}"),
            Lang::Hi => format!("रूट {route}"),
            Lang::Ja => format!("ルート {route}"),
        }
    }

    /// An out-of-rotation server and the one standing in for it.
    pub fn replaced_by(self, name: &str, country: &str) -> String {
        match self {
            Lang::En => format!("Replaced by {name} ({country})"),
            Lang::Es => format!("Sustituido por {name} ({country})"),
            Lang::Pt => format!("Substituído por {name} ({country})"),
            Lang::Sv => format!("Ersatt av {name} ({country})"),
            Lang::Hi => format!("इसकी जगह {name} ({country})"),
            Lang::Ja => format!("{name}（{country}）が代替中"),
        }
    }

    /// A server standing in for an out-of-rotation one.
    pub fn stands_in_for(self, name: &str, country: &str) -> String {
        match self {
            Lang::En => format!("Stands in for {name} ({country})"),
            Lang::Es => format!("Sustituye a {name} ({country})"),
            Lang::Pt => format!("Substitui {name} ({country})"),
            Lang::Sv => format!("Ersätter {name} ({country})"),
            Lang::Hi => format!("{name} ({country}) की जगह ले रहा है"),
            Lang::Ja => format!("{name}（{country}）の代替"),
        }
    }

    /// What the user card says of a server's place in the user's
    /// subscription: one of the user's own servers that left rotation
    /// reads as out of rotation (with its replacement, or why there is
    /// none); only a server the balancing never gave them is "not assigned".
    pub fn placement(self, placement: &Placement<ServerRef>) -> PlacementWords {
        let out = || self.ui(Ui::OutOfRotation).to_owned();
        let (headline, detail) = match placement {
            Placement::Serving => (self.ui(Ui::InTheSubscription).to_owned(), None),
            Placement::ReplacedBy(by) => (out(), Some(self.replaced_by(&by.name, &by.country))),
            Placement::StandsInFor(of) => (self.stands_in_for(&of.name, &of.country), None),
            Placement::OutOfRotation => (out(), Some(self.ui(Ui::NoSpareToReplace).to_owned())),
            Placement::OutBestAvailable(best) => (
                out(),
                Some(self.route_serves_best_available(&best.name, &best.country)),
            ),
            Placement::BestAvailable => (self.ui(Ui::ServedAsBestAvailable).to_owned(), None),
            Placement::NotAssigned => (self.ui(Ui::NotAssignedToUser).to_owned(), None),
        };
        PlacementWords { headline, detail }
    }

    // ── Server card ─────────────────────────────────────────────────────

    /// When the agent last reported (`last` from [`Lang::age`]) and when
    /// reports stop counting.
    pub fn last_report_note(self, last: &str, stale_after_s: u32) -> String {
        let s = self.number(stale_after_s.into());
        match self {
            Lang::En => format!("Last report {last}; reports older than {s} s do not count."),
            Lang::Es => format!(
                "Último informe: {last}; los informes con más de {s} s de antigüedad no cuentan."
            ),
            Lang::Pt => {
                format!("Último relatório: {last}; relatórios com mais de {s} s não contam.")
            }
            Lang::Sv => format!("Senaste rapport: {last}; rapporter äldre än {s} s räknas inte."),
            Lang::Hi => format!("अंतिम रिपोर्ट: {last}; {s} सेकंड से पुरानी रिपोर्टें नहीं गिनी जातीं।"),
            Lang::Ja => format!("最終レポート：{last}。{s}秒より古いレポートは考慮されません。"),
        }
    }

    /// How long the server has been up (`duration` already formatted).
    /// What an action waits for, in the panel's words.
    pub fn action_event(self, event: meshwatch::actions::ActionEvent) -> &'static str {
        use meshwatch::actions::ActionEvent;
        match event {
            ActionEvent::Blocked => self.status(meshwatch::status::ServerStatus::Blocked),
            ActionEvent::Unavailable => self.status(meshwatch::status::ServerStatus::Unavailable),
            ActionEvent::Unreachable => self.status(meshwatch::status::ServerStatus::Unreachable),
            ActionEvent::Cleared => self.ui(Ui::EventCleared),
        }
    }

    /// A verifier whose blocks cover most of what it probes.
    pub fn mass_block(self, verifier: &str, blocked: u32, probed: u32) -> String {
        let (k, n) = (
            self.number(u64::from(blocked)),
            self.number(u64::from(probed)),
        );
        match self {
            Lang::En => format!("The verifier {verifier} sees {k} of the {n} servers it probes blocked: a censor blocking a whole hosting network, or a verifier gone wrong. The blocks are shown, but their actions wait for you."),
            Lang::Es => format!("El verificador {verifier} ve bloqueados {k} de los {n} servidores que sondea: un censor que bloquea toda una red de hosting, o un verificador que falla. Los bloqueos se muestran, pero sus acciones esperan tu decisión."),
            Lang::Pt => format!("O verificador {verifier} vê bloqueados {k} dos {n} servidores que sonda: um censor bloqueando toda uma rede de hospedagem, ou um verificador com defeito. Os bloqueios são mostrados, mas as ações esperam por você."),
            Lang::Sv => format!("Kontrollservern {verifier} ser {k} av de {n} servrar den kontrollerar blockerade: en censor som blockerar ett helt värdnät, eller en kontrollserver som gått fel. Blockeringarna visas, men deras åtgärder väntar på dig."),
            Lang::Hi => format!("जाँचकर्ता {verifier} अपने जाँचे {n} सर्वरों में से {k} को ब्लॉक देखता है: कोई सेंसर पूरा होस्टिंग नेटवर्क ब्लॉक कर रहा है, या जाँचकर्ता ख़राब है। ब्लॉक दिखाए जाते हैं, पर इनकी क्रियाएँ आपकी प्रतीक्षा करती हैं।"),
            Lang::Ja => format!("検証サーバー {verifier} は、調べている{n}台中{k}台をブロックと判定しています。ホスティング網全体を遮断する検閲か、検証サーバーの異常です。ブロックは表示されますが、アクションはあなたの判断を待ちます。"),
        }
    }

    /// What a token of `scope` may do, in a few words.
    pub fn token_scope(self, scope: meshwatch::account::TokenScope) -> &'static str {
        use meshwatch::account::TokenScope::*;
        match (self, scope) {
            (Lang::En, Read) => "read: reads only",
            (Lang::En, Fleet) => "fleet: also the fleet, verifiers, maintenance",
            (Lang::En, Admin) => "admin: also actions, tokens, settings",
            (Lang::Es, Read) => "lectura: solo lee",
            (Lang::Es, Fleet) => "flota: también la flota, los verificadores, el mantenimiento",
            (Lang::Es, Admin) => "admin: también acciones, tokens, configuración",
            (Lang::Pt, Read) => "leitura: só lê",
            (Lang::Pt, Fleet) => "frota: também a frota, os verificadores, a manutenção",
            (Lang::Pt, Admin) => "admin: também ações, tokens, configurações",
            (Lang::Sv, Read) => "läsa: läser bara",
            (Lang::Sv, Fleet) => "flotta: även flottan, kontrollservrar, underhåll",
            (Lang::Sv, Admin) => "admin: även åtgärder, token, inställningar",
            (Lang::Hi, Read) => "पढ़ना: केवल पढ़ता है",
            (Lang::Hi, Fleet) => "बेड़ा: बेड़ा, जाँचकर्ता और रखरखाव भी",
            (Lang::Hi, Admin) => "एडमिन: क्रियाएँ, टोकन और सेटिंग्स भी",
            (Lang::Ja, Read) => "読み取り：読むだけ",
            (Lang::Ja, Fleet) => "フリート：フリート、検証サーバー、メンテナンスも",
            (Lang::Ja, Admin) => "管理：アクション、トークン、設定も",
        }
    }

    /// What a password change did to the API tokens: those the
    /// operator's sessions created are revoked; the others stay.
    pub fn tokens_revoked(self, revoked: &[String]) -> String {
        let names = self.list(revoked);
        match (self, revoked.is_empty()) {
            (Lang::En, true) => "No API token was created by your sessions; tokens made outside the panel (MESHWATCH_ADMIN_TOKEN, the demo) stay: revoke them below if the old password leaked.".to_owned(),
            (Lang::En, false) => format!("The API tokens your sessions created were revoked: {names}. Tokens made outside the panel stay."),
            (Lang::Es, true) => "Tus sesiones no crearon ningún token de API; los creados fuera del panel (MESHWATCH_ADMIN_TOKEN, la demo) se mantienen: revócalos abajo si la contraseña anterior se filtró.".to_owned(),
            (Lang::Es, false) => format!("Se revocaron los tokens de API que crearon tus sesiones: {names}. Los creados fuera del panel se mantienen."),
            (Lang::Pt, true) => "Suas sessões não criaram nenhum token de API; os criados fora do painel (MESHWATCH_ADMIN_TOKEN, a demo) continuam: revogue-os abaixo se a senha antiga vazou.".to_owned(),
            (Lang::Pt, false) => format!("Os tokens de API que suas sessões criaram foram revogados: {names}. Os criados fora do painel continuam."),
            (Lang::Sv, true) => "Dina sessioner skapade inga API-token; token som skapats utanför panelen (MESHWATCH_ADMIN_TOKEN, demon) finns kvar: återkalla dem nedan om det gamla lösenordet läckt.".to_owned(),
            (Lang::Sv, false) => format!("API-token som dina sessioner skapade återkallades: {names}. Token som skapats utanför panelen finns kvar."),
            (Lang::Hi, true) => "आपके सत्रों ने कोई API टोकन नहीं बनाया; पैनल के बाहर बने टोकन (MESHWATCH_ADMIN_TOKEN, डेमो) बने रहते हैं: पुराना पासवर्ड लीक हुआ हो तो उन्हें नीचे रद्द करें।".to_owned(),
            (Lang::Hi, false) => format!("आपके सत्रों द्वारा बनाए गए API टोकन रद्द कर दिए गए: {names}। पैनल के बाहर बने टोकन बने रहते हैं।"),
            (Lang::Ja, true) => "あなたのセッションが作成したAPIトークンはありません。パネル外で作成したトークン（MESHWATCH_ADMIN_TOKEN、デモ）は残ります。古いパスワードが漏れた場合は下で失効させてください。".to_owned(),
            (Lang::Ja, false) => format!("あなたのセッションが作成したAPIトークンを失効させました：{names}。パネル外で作成したトークンは残ります。"),
        }
    }

    /// The actions' budget: `runs` an hour across the fleet, one run per
    /// server and action per `cooldown` (a [`Lang::duration`]).
    pub fn action_budget(self, runs: u32, cooldown: &str) -> String {
        let n = self.number(u64::from(runs));
        match self {
            Lang::En => format!("Budget: at most {n} runs an hour across the fleet, and one run per server and action every {cooldown}; past it, actions switch themselves off."),
            Lang::Es => format!("Presupuesto: como máximo {n} ejecuciones por hora en toda la flota, y una por servidor y acción cada {cooldown}; al superarlo, las acciones se desactivan solas."),
            Lang::Pt => format!("Orçamento: no máximo {n} execuções por hora em toda a frota, e uma por servidor e ação a cada {cooldown}; além disso, as ações se desativam sozinhas."),
            Lang::Sv => format!("Budget: högst {n} körningar i timmen i hela flottan, och en körning per server och åtgärd var {cooldown}; därutöver stänger åtgärderna av sig själva."),
            Lang::Hi => format!("बजट: पूरे बेड़े में एक घंटे में अधिकतम {n} बार, और हर सर्वर व क्रिया के लिए हर {cooldown} में एक बार; इससे आगे क्रियाएँ अपने आप बंद हो जाती हैं।"),
            Lang::Ja => format!("予算：フリート全体で1時間に最大{n}回、サーバーとアクションごとに{cooldown}に1回まで。超えるとアクションは自動的に無効になります。"),
        }
    }

    /// How a run stands.
    pub fn run_outcome(self, run: &meshwatch::actions::ActionRun) -> &'static str {
        use meshwatch::actions::RunOutcome;
        self.ui(match (run.outcome, run.retrying) {
            (RunOutcome::Ok, _) => Ui::RunOk,
            (RunOutcome::Running, _) => Ui::RunRunning,
            (RunOutcome::Failed, true) => Ui::RunRetrying,
            (RunOutcome::Failed, false) => Ui::RunFailed,
            (RunOutcome::Interrupted, _) => Ui::RunInterrupted,
        })
    }

    /// A route's state on the public status page.
    pub fn route_state(self, state: crate::status_page::RouteState) -> &'static str {
        use crate::status_page::RouteState;
        self.ui(match state {
            RouteState::Operational => Ui::StateOperational,
            RouteState::Maintenance => Ui::Maintenance,
            RouteState::Degraded => Ui::StateDegraded,
            RouteState::PartialOutage => Ui::StatePartialOutage,
        })
    }

    /// The status page's headline: how the worst route stands.
    pub fn overall_state(self, state: crate::status_page::RouteState) -> &'static str {
        use crate::status_page::RouteState;
        self.ui(match state {
            RouteState::Operational => Ui::OverallOperational,
            RouteState::Maintenance => Ui::OverallMaintenance,
            RouteState::Degraded => Ui::OverallDegraded,
            RouteState::PartialOutage => Ui::OverallPartialOutage,
        })
    }

    /// When the status page was made: "Updated 2026-12-04 14:00:00 UTC".
    pub fn updated_at(self, at: &str) -> String {
        match self {
            Lang::En => format!("Updated {at}"),
            Lang::Es => format!("Actualizado: {at}"),
            Lang::Pt => format!("Atualizado: {at}"),
            Lang::Sv => format!("Uppdaterad {at}"),
            Lang::Hi => format!("अपडेट किया गया: {at}"),
            Lang::Ja => format!("更新：{at}"),
        }
    }

    /// Time a window spent in maintenance: "2 hours in maintenance".
    pub fn maintenance_time(self, duration: &str) -> String {
        let d = duration;
        match self {
            Lang::En => format!("{d} in maintenance"),
            Lang::Es => format!("{d} en mantenimiento"),
            Lang::Pt => format!("{d} em manutenção"),
            Lang::Sv => format!("{d} under underhåll"),
            Lang::Hi => format!("{d} रखरखाव में"),
            Lang::Ja => format!("メンテナンス {d}"),
        }
    }

    /// The status line of a server in a window, with the window's end.
    pub fn in_maintenance_until(self, until: &str) -> String {
        let t = until;
        match self {
            Lang::En => format!("In maintenance until {t}"),
            Lang::Es => format!("En mantenimiento hasta {t}"),
            Lang::Pt => format!("Em manutenção até {t}"),
            Lang::Sv => format!("Under underhåll till {t}"),
            Lang::Hi => format!("{t} तक रखरखाव में"),
            Lang::Ja => format!("{t}までメンテナンス中"),
        }
    }

    /// A server drained ahead of its window.
    pub fn draining_for_maintenance(self, start: &str) -> String {
        let t = start;
        match self {
            Lang::En => format!("Maintenance starts {t}: out of rotation already, so the apps move away first"),
            Lang::Es => format!("El mantenimiento empieza el {t}: ya está fuera de rotación para que las apps se muevan antes"),
            Lang::Pt => format!("A manutenção começa em {t}: já fora de rotação, para que os apps saiam antes"),
            Lang::Sv => format!("Underhållet börjar {t}: redan ur rotation, så att apparna hinner flytta"),
            Lang::Hi => format!("रखरखाव {t} पर शुरू होगा: पहले से रोटेशन से बाहर, ताकि ऐप पहले हट जाएँ"),
            Lang::Ja => format!("メンテナンスは{t}に開始します。アプリが先に移動できるよう、すでにローテーションから外しています"),
        }
    }

    pub fn up_for(self, duration: &str) -> String {
        let d = duration;
        match self {
            Lang::En => format!("Up for {d}"),
            Lang::Es => format!("En funcionamiento desde hace {d}"),
            Lang::Pt => format!("Em funcionamento há {d}"),
            Lang::Sv => format!("Igång i {d}"),
            Lang::Hi => format!("{d} से चालू"),
            Lang::Ja => format!("稼働時間：{d}"),
        }
    }

    /// An entry point a verifier fails while it still reaches the server
    /// by another (a block of one protocol, often UDP/QUIC, on the
    /// verifier's network); `by` is the verifier, `since` when.
    pub fn verifier_fails_entry_point(self, by: &str, since: &str, ago: &str) -> String {
        match self {
            Lang::En => format!("The verifier {by} can't reach this entry point since {since} ({ago}) but still reaches the server by another: this protocol is probably blocked on its network. Nothing is removed."),
            Lang::Es => format!("El verificador {by} no alcanza este punto de entrada desde {since} ({ago}) pero sigue alcanzando el servidor por otro: probablemente este protocolo está bloqueado en su red. No se retira nada."),
            Lang::Pt => format!("O verificador {by} não alcança este ponto de entrada desde {since} ({ago}), mas ainda alcança o servidor por outro: este protocolo provavelmente está bloqueado na rede dele. Nada é removido."),
            Lang::Sv => format!("Kontrollservern {by} har inte nått den här ingångspunkten sedan {since} ({ago}) men når fortfarande servern via en annan: protokollet är troligen blockerat i dess nät. Inget tas bort."),
            Lang::Hi => format!("जाँचकर्ता {by} {since} ({ago}) से इस प्रवेश बिंदु तक नहीं पहुँच पा रहा, पर किसी दूसरे से सर्वर तक अब भी पहुँचता है: इसके नेटवर्क पर यह प्रोटोकॉल शायद ब्लॉक है। कुछ भी हटाया नहीं गया।"),
            Lang::Ja => format!("検証サーバー {by} は {since}（{ago}）からこの接続ポイントに到達できませんが、別の接続ポイントではサーバーに到達できます。このプロトコルがそのネットワークでブロックされている可能性があります。何も除外されません。"),
        }
    }

    /// §8 `sni`: the entry point's SNI is filtered on `places`, with the fix.
    pub fn sni_filtered_on(self, sni: &str, places: &str) -> String {
        let p = places;
        match self {
            Lang::En => format!("SNI {sni} filtered on {p}: choose another SNI or camouflage domain; a new IP will not help."),
            Lang::Es => format!("SNI {sni} filtrado en {p}: elige otro SNI o dominio de camuflaje; una IP nueva no ayudará."),
            Lang::Pt => format!("SNI {sni} filtrado em {p}: escolha outro SNI ou domínio de camuflagem; um IP novo não vai ajudar."),
            Lang::Sv => format!("SNI {sni} filtreras i {p}: välj ett annat SNI eller en annan kamoufleringsdomän; en ny IP-adress hjälper inte."),
            Lang::Hi => format!("{p} पर SNI {sni} फ़िल्टर हो रहा है: कोई दूसरा SNI या छद्म डोमेन चुनें; नया IP मदद नहीं करेगा।"),
            Lang::Ja => format!("{p}で SNI {sni} がフィルタリングされています。別の SNI またはカモフラージュ用ドメインを選んでください。新しい IP では解決しません。"),
        }
    }

    /// §8 `throttled`: connections freeze after about `kb` KB on `places`.
    pub fn frozen_on(self, kb: u64, places: &str) -> String {
        let p = places;
        match self {
            Lang::En => format!("Connections freeze after about {kb} KB on {p}: move the server to another provider's range or put a domestic relay in front."),
            Lang::Es => format!("Las conexiones se congelan tras unos {kb} KB en {p}: traslada el servidor al rango de otro proveedor o pon delante un relé nacional."),
            Lang::Pt => format!("As conexões congelam após cerca de {kb} KB em {p}: mova o servidor para a faixa de outro provedor ou coloque um relay nacional na frente."),
            Lang::Sv => format!("Anslutningar fryser efter ungefär {kb} KB i {p}: flytta servern till en annan leverantörs adressintervall eller sätt ett inhemskt relä framför."),
            Lang::Hi => format!("{p} पर लगभग {kb} KB के बाद कनेक्शन रुक जाते हैं: सर्वर को किसी दूसरे प्रदाता की रेंज में ले जाएँ या आगे एक घरेलू रिले लगाएँ।"),
            Lang::Ja => format!("{p}では約 {kb} KB で接続が停止します。サーバーを別のプロバイダーのアドレス範囲に移すか、前段に国内リレーを置いてください。"),
        }
    }

    /// §8 `protocol`: one transport is blocked on `places`.
    pub fn protocol_blocked_on(
        self,
        transport: meshwatch::fleet::Transport,
        places: &str,
    ) -> String {
        let (t, p) = (
            match transport {
                meshwatch::fleet::Transport::Quic => "QUIC (UDP)",
                meshwatch::fleet::Transport::Tcp => "TCP",
            },
            places,
        );
        match self {
            Lang::En => format!("{t} blocked on {p}: its entry points are served last; nothing leaves rotation."),
            Lang::Es => format!("{t} bloqueado en {p}: sus puntos de entrada se sirven al final; nada sale de la rotación."),
            Lang::Pt => format!("{t} bloqueado em {p}: seus pontos de entrada são servidos por último; nada sai da rotação."),
            Lang::Sv => format!("{t} blockeras i {p}: dess ingångspunkter serveras sist; inget tas ur rotationen."),
            Lang::Hi => format!("{p} पर {t} ब्लॉक है: इसके प्रवेश बिंदु सबसे आखिर में दिए जाते हैं; रोटेशन से कुछ नहीं हटता।"),
            Lang::Ja => format!("{p}で {t} がブロックされています。その接続ポイントは最後に提供され、ローテーションからは何も外れません。"),
        }
    }

    /// The cause of an entry point's pair failure (`since` a timestamp,
    /// `ago` from [`Lang::age`]).
    pub fn check_fails_since(self, from: &str, to: &str, since: &str, ago: &str) -> String {
        match self {
            Lang::En => format!("Check from {from} to {to} fails since {since} ({ago})"),
            Lang::Es => format!("La comprobación de {from} a {to} falla desde {since} ({ago})"),
            Lang::Pt => format!("A verificação de {from} para {to} falha desde {since} ({ago})"),
            Lang::Sv => {
                format!("Kontrollen från {from} till {to} har misslyckats sedan {since} ({ago})")
            }
            Lang::Hi => format!("{from} से {to} तक की जाँच {since} से विफल है ({ago})"),
            Lang::Ja => {
                format!("{since}（{ago}）以降、{from} から {to} へのチェックが失敗しています")
            }
        }
    }

    /// "Uptime 24 h" — `window` is one of the `Window…` keys' texts.
    pub fn uptime_over(self, window: &str) -> String {
        let w = window;
        match self {
            Lang::En => format!("Uptime {w}"),
            Lang::Es => format!("Disponibilidad {w}"),
            Lang::Pt => format!("Disponibilidade {w}"),
            Lang::Sv => format!("Drifttid {w}"),
            Lang::Hi => format!("उपलब्धता ({w})"),
            Lang::Ja => format!("稼働率（{w}）"),
        }
    }

    // ── Charts ──────────────────────────────────────────────────────────

    /// The text alternative of a sparkline with reports.
    pub fn chart_summary(self, label: &str, peak: &str) -> String {
        match self {
            Lang::En => format!("{label} over the last 24 hours, peak {peak}"),
            Lang::Es => format!("{label} en las últimas 24 horas, pico {peak}"),
            Lang::Pt => format!("{label} nas últimas 24 horas, pico {peak}"),
            Lang::Sv => format!("{label} under de senaste 24 timmarna, topp {peak}"),
            Lang::Hi => format!("पिछले 24 घंटों में {label}, शिखर {peak}"),
            Lang::Ja => format!("過去24時間の{label}、ピーク {peak}"),
        }
    }

    /// The text alternative of a sparkline without reports.
    pub fn chart_no_reports(self, label: &str) -> String {
        match self {
            Lang::En => format!("{label}: no reports in the last 24 hours"),
            Lang::Es => format!("{label}: sin informes en las últimas 24 horas"),
            Lang::Pt => format!("{label}: sem relatórios nas últimas 24 horas"),
            Lang::Sv => format!("{label}: inga rapporter under de senaste 24 timmarna"),
            Lang::Hi => format!("{label}: पिछले 24 घंटों में कोई रिपोर्ट नहीं"),
            Lang::Ja => format!("{label}：過去24時間のレポートなし"),
        }
    }

    /// A sparkline's peak caption: "peak 42.0%".
    pub fn chart_peak(self, peak: &str) -> String {
        match self {
            Lang::En => format!("peak {peak}"),
            Lang::Es => format!("pico {peak}"),
            Lang::Pt => format!("pico {peak}"),
            Lang::Sv => format!("topp {peak}"),
            Lang::Hi => format!("शिखर {peak}"),
            Lang::Ja => format!("ピーク {peak}"),
        }
    }

    // ── Settings ────────────────────────────────────────────────────────

    /// Shown once, when a token is created.
    pub fn token_created(self, name: &str) -> String {
        match self {
            Lang::En => format!("Token \"{name}\" created. Copy it now: it is not shown again."),
            Lang::Es => format!("Token «{name}» creado. Cópialo ahora: no se volverá a mostrar."),
            Lang::Pt => {
                format!("Token “{name}” criado. Copie-o agora: ele não será exibido novamente.")
            }
            Lang::Sv => format!("Token ”{name}” har skapats. Kopiera den nu: den visas inte igen."),
            Lang::Hi => {
                format!("टोकन \"{name}\" बनाया गया। इसे अभी कॉपी करें: यह दोबारा नहीं दिखाया जाएगा।")
            }
            Lang::Ja => format!(
                "トークン「{name}」を作成しました。今すぐコピーしてください。再表示されません。"
            ),
        }
    }

    /// The server card's line for a host meshwatch turned off in a
    /// connected panel: "Hidden in Remnawave (rw) since 12:04".
    pub fn hidden_in(self, panel: &str, connector: &str, since: &str) -> String {
        match self {
            Lang::En => format!("Hidden in {panel} ({connector}) since {since}"),
            Lang::Es => format!("Oculto en {panel} ({connector}) desde {since}"),
            Lang::Pt => format!("Oculto no {panel} ({connector}) desde {since}"),
            Lang::Sv => format!("Dold i {panel} ({connector}) sedan {since}"),
            Lang::Hi => format!("{since} से {panel} ({connector}) में छिपा हुआ"),
            Lang::Ja => format!("{since} から {panel}（{connector}） で非表示"),
        }
    }

    /// When a token was created (`at` already formatted).
    pub fn created_at(self, at: &str) -> String {
        match self {
            Lang::En => format!("created {at}"),
            Lang::Es => format!("creado el {at}"),
            Lang::Pt => format!("criado em {at}"),
            Lang::Sv => format!("skapad {at}"),
            Lang::Hi => format!("{at} को बनाया गया"),
            Lang::Ja => format!("{at} に作成"),
        }
    }

    /// The accessible name of a token's revoke button.
    pub fn revoke_token(self, name: &str) -> String {
        match self {
            Lang::En => format!("Revoke {name}"),
            Lang::Es => format!("Revocar {name}"),
            Lang::Pt => format!("Revogar {name}"),
            Lang::Sv => format!("Återkalla {name}"),
            Lang::Hi => format!("{name} रद्द करें"),
            Lang::Ja => format!("{name} を失効させる"),
        }
    }
}

/// The parameterised phrases without a count, each by name with sample
/// values, for the tests (the counted ones are in `counted::phrases`).
#[cfg(test)]
pub(super) fn samples(lang: Lang) -> Vec<(&'static str, String)> {
    let at = DateTime::parse_from_rfc3339("2026-03-04T05:06:07Z")
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_default();
    let ago = |s: i64| lang.age(at - chrono::Duration::seconds(s), at);
    let mut out = vec![
        ("age.now", ago(3)),
        ("age.s", ago(42)),
        ("age.min", ago(300)),
        ("age.h", ago(3 * 3600)),
        ("age.d", ago(3 * 86_400)),
        ("used_of_total", lang.used_of_total("1.0 GiB", "4.0 GiB")),
        (
            "replica_roles.other",
            lang.replica_roles("panel-1", Some("panel-2")),
        ),
        (
            "replica_roles.this",
            lang.replica_roles("panel-1", Some("panel-1")),
        ),
        ("replica_roles.none", lang.replica_roles("panel-1", None)),
        (
            "route_serves_best_available",
            lang.route_serves_best_available("Frankfurt 1", "DE"),
        ),
        ("failing_streak", lang.failing_streak(3)),
        ("page_of", lang.page_of(2, 5)),
        ("replaced_by", lang.replaced_by("Amsterdam 1", "NL")),
        ("stands_in_for", lang.stands_in_for("Frankfurt 1", "DE")),
        ("last_report_note", lang.last_report_note("5 min", 180)),
        ("action_budget", lang.action_budget(6, "6 h")),
        ("tokens_revoked none", lang.tokens_revoked(&[])),
        (
            "mass_block",
            lang.mass_block("Tokyo 1 (JP, NTT home fiber)", 7, 9),
        ),
        (
            "tokens_revoked two",
            lang.tokens_revoked(&["ci".to_owned(), "ansible".to_owned()]),
        ),
        (
            "token_scope read",
            lang.token_scope(meshwatch::account::TokenScope::Read)
                .to_owned(),
        ),
        (
            "token_scope fleet",
            lang.token_scope(meshwatch::account::TokenScope::Fleet)
                .to_owned(),
        ),
        (
            "token_scope admin",
            lang.token_scope(meshwatch::account::TokenScope::Admin)
                .to_owned(),
        ),
        ("up_for", lang.up_for(&lang.duration(93_784))),
        (
            "maintenance_time",
            lang.maintenance_time(&lang.duration(7_200)),
        ),
        (
            "in_maintenance_until",
            lang.in_maintenance_until("2026-03-04 07:00:00 UTC"),
        ),
        ("updated_at", lang.updated_at("2026-03-04 07:00:00 UTC")),
        (
            "draining_for_maintenance",
            lang.draining_for_maintenance("2026-03-04 07:00:00 UTC"),
        ),
        (
            "check_fails_since",
            lang.check_fails_since("A", "B", "2026-03-04 05:06:07 UTC", "5 min"),
        ),
        (
            "verifier_fails_entry_point",
            lang.verifier_fails_entry_point("Moscow 1 (RU)", "2026-03-04 05:06:07 UTC", "5 min"),
        ),
        ("uptime_over", lang.uptime_over("24 h")),
        ("chart_summary", lang.chart_summary("CPU", "42.0%")),
        ("chart_no_reports", lang.chart_no_reports("CPU")),
        ("chart_peak", lang.chart_peak("42.0%")),
        ("token_created", lang.token_created("ansible")),
        ("created_at", lang.created_at("2026-03-04 05:06:07 UTC")),
        ("revoke_token", lang.revoke_token("ansible")),
    ];
    if let Ok(route) = meshwatch::RouteId::parse("germany") {
        out.push(("route_heading", lang.route_heading(&route)));
    }
    out
}
