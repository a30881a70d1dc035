//! The refusals the panel's forms write themselves, typed so the page
//! says them in its language (the server sends the kind and the operator's
//! own input, never prose).

use super::{Lang, Ui};
use serde::{Deserialize, Serialize};

/// Which end of a maintenance window a typed time was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WindowEnd {
    Start,
    End,
}

/// A form's refusal; nothing was saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum FormError {
    /// The current password given to change it is wrong.
    WrongCurrentPassword,
    /// The password asked again before a sensitive change is wrong.
    WrongPassword,
    /// A maintenance window's start or end is not a date and time.
    NotATime { end: WindowEnd, typed: String },
    /// The unreliable fraction is not a decimal number.
    NotADecimal { typed: String },
    /// An action's wait is not a whole number of minutes.
    NotMinutes { typed: String },
    /// An action's HTTP body is not JSON (`detail`: the parser's words).
    BodyNotJson { detail: String },
    /// An API token of that name exists already.
    TokenNameTaken { name: String },
    /// A new password shorter than `min` characters.
    PasswordTooShort { min: usize },
    /// The new password and its repetition differ.
    PasswordsDiffer,
    /// The new password is the current one.
    PasswordUnchanged,
    /// A token name that is not 1 to `max` letters, digits, '-', '_' or '.'.
    BadTokenName { max: usize },
    /// An operator name that is not 1 to `max` characters without spaces.
    BadUsername { max: usize },
}

impl From<&meshwatch::account::AccountError> for FormError {
    fn from(error: &meshwatch::account::AccountError) -> Self {
        use meshwatch::account::{
            AccountError as A, MAX_TOKEN_NAME_LEN, MAX_USERNAME_LEN, MIN_PASSWORD_LEN,
        };
        match error {
            A::PasswordTooShort => FormError::PasswordTooShort {
                min: MIN_PASSWORD_LEN,
            },
            A::PasswordsDiffer => FormError::PasswordsDiffer,
            A::PasswordUnchanged => FormError::PasswordUnchanged,
            A::BadTokenName => FormError::BadTokenName {
                max: MAX_TOKEN_NAME_LEN,
            },
            A::BadUsername => FormError::BadUsername {
                max: MAX_USERNAME_LEN,
            },
        }
    }
}

impl Lang {
    /// The refusal in this language.
    pub fn form_error(self, error: &FormError) -> String {
        match error {
            FormError::WrongCurrentPassword => self.ui(Ui::WrongCurrentPassword).to_owned(),
            FormError::WrongPassword => self.ui(Ui::WrongPasswordNothingChanged).to_owned(),
            FormError::NotATime { end, typed } => {
                let field = self.ui(match end {
                    WindowEnd::Start => Ui::MaintenanceStart,
                    WindowEnd::End => Ui::MaintenanceEnd,
                });
                match self {
                    Lang::En => format!("{field}: {typed:?} is not a date and time."),
                    Lang::Es => format!("{field}: {typed:?} no es una fecha y hora."),
                    Lang::Pt => format!("{field}: {typed:?} não é uma data e hora."),
                    Lang::Sv => format!("{field}: {typed:?} är inte ett datum och en tid."),
                    Lang::Hi => format!("{field}: {typed:?} कोई तारीख और समय नहीं है।"),
                    Lang::Ja => format!("{field}：「{typed}」は日時ではありません。"),
                }
            }
            FormError::NotADecimal { typed } => {
                let field = self.ui(Ui::UnreliableFraction);
                match self {
                    Lang::En => format!("{field}: {typed:?} is not a decimal number."),
                    Lang::Es => format!("{field}: {typed:?} no es un número decimal."),
                    Lang::Pt => format!("{field}: {typed:?} não é um número decimal."),
                    Lang::Sv => format!("{field}: {typed:?} är inte ett decimaltal."),
                    Lang::Hi => format!("{field}: {typed:?} कोई दशमलव संख्या नहीं है।"),
                    Lang::Ja => format!("{field}：「{typed}」は小数ではありません。"),
                }
            }
            FormError::NotMinutes { typed } => match self {
                Lang::En => format!("{typed:?} is not a whole number of minutes."),
                Lang::Es => format!("{typed:?} no es un número entero de minutos."),
                Lang::Pt => format!("{typed:?} não é um número inteiro de minutos."),
                Lang::Sv => format!("{typed:?} är inte ett helt antal minuter."),
                Lang::Hi => format!("{typed:?} मिनटों की पूर्ण संख्या नहीं है।"),
                Lang::Ja => format!("「{typed}」は分を表す整数ではありません。"),
            },
            FormError::BodyNotJson { detail } => match self {
                Lang::En => format!("The body is not JSON ({detail})."),
                Lang::Es => format!("El cuerpo no es JSON ({detail})."),
                Lang::Pt => format!("O corpo não é JSON ({detail})."),
                Lang::Sv => format!("Brödtexten är inte JSON ({detail})."),
                Lang::Hi => format!("बॉडी JSON नहीं है ({detail})।"),
                Lang::Ja => format!("本文が JSON ではありません（{detail}）。"),
            },
            FormError::PasswordTooShort { min } => match self {
                Lang::En => format!("The new password needs at least {min} characters."),
                Lang::Es => format!("La nueva contraseña necesita al menos {min} caracteres."),
                Lang::Pt => format!("A nova senha precisa de pelo menos {min} caracteres."),
                Lang::Sv => format!("Det nya lösenordet behöver minst {min} tecken."),
                Lang::Hi => format!("नए पासवर्ड में कम से कम {min} अक्षर होने चाहिए।"),
                Lang::Ja => format!("新しいパスワードは{min}文字以上必要です。"),
            },
            FormError::PasswordsDiffer => self.ui(Ui::NewPasswordsDiffer).to_owned(),
            FormError::PasswordUnchanged => self.ui(Ui::NewPasswordIsCurrent).to_owned(),
            FormError::BadTokenName { max } => match self {
                Lang::En => format!("A token name is 1 to {max} letters, digits, '-', '_' or '.'."),
                Lang::Es => format!("El nombre de un token tiene de 1 a {max} letras, dígitos, «-», «_» o «.»."),
                Lang::Pt => format!("O nome de um token tem de 1 a {max} letras, dígitos, '-', '_' ou '.'."),
                Lang::Sv => format!("Ett tokennamn är 1 till {max} bokstäver, siffror, '-', '_' eller '.'."),
                Lang::Hi => format!("टोकन का नाम 1 से {max} अक्षरों, अंकों, '-', '_' या '.' का होता है।"),
                Lang::Ja => format!("トークン名は1〜{max}文字の英数字、「-」「_」「.」で指定してください。"),
            },
            FormError::BadUsername { max } => match self {
                Lang::En => format!("An operator name is 1 to {max} characters without spaces."),
                Lang::Es => format!("El nombre de un operador tiene de 1 a {max} caracteres, sin espacios."),
                Lang::Pt => format!("O nome de um operador tem de 1 a {max} caracteres, sem espaços."),
                Lang::Sv => format!("Ett operatörsnamn är 1 till {max} tecken utan mellanslag."),
                Lang::Hi => format!("ऑपरेटर का नाम बिना स्पेस के 1 से {max} अक्षरों का होता है।"),
                Lang::Ja => format!("オペレーター名は空白なしの1〜{max}文字で指定してください。"),
            },
            FormError::TokenNameTaken { name } => match self {
                Lang::En => format!("A token named \"{name}\" exists already: revoke it first or choose another name."),
                Lang::Es => format!("Ya existe un token llamado «{name}»: revócalo antes o elige otro nombre."),
                Lang::Pt => format!("Já existe um token chamado “{name}”: revogue-o antes ou escolha outro nome."),
                Lang::Sv => format!("Det finns redan en token som heter ”{name}”: återkalla den först eller välj ett annat namn."),
                Lang::Hi => format!("\"{name}\" नाम का टोकन पहले से मौजूद है: पहले उसे रद्द करें या कोई दूसरा नाम चुनें।"),
                Lang::Ja => format!("「{name}」という名前のトークンはすでにあります。先に失効させるか、別の名前を選んでください。"),
            },
        }
    }
}

/// Every refusal with sample input, for the pins.
#[cfg(test)]
pub(super) fn samples(lang: Lang) -> Vec<(String, String)> {
    let all = [
        FormError::WrongCurrentPassword,
        FormError::WrongPassword,
        FormError::NotATime {
            end: WindowEnd::Start,
            typed: "tomorrow".into(),
        },
        FormError::NotATime {
            end: WindowEnd::End,
            typed: "32.13.".into(),
        },
        FormError::NotADecimal {
            typed: "half".into(),
        },
        FormError::NotMinutes {
            typed: "ten".into(),
        },
        FormError::BodyNotJson {
            detail: "expected value at line 1 column 1".into(),
        },
        FormError::TokenNameTaken { name: "ci".into() },
        FormError::PasswordTooShort { min: 10 },
        FormError::PasswordsDiffer,
        FormError::PasswordUnchanged,
        FormError::BadTokenName { max: 64 },
        FormError::BadUsername { max: 64 },
    ];
    all.iter()
        .map(|e| (format!("form_error {e:?}"), lang.form_error(e)))
        .collect()
}
