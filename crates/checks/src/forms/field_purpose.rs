//! What a form field is for, judged from its name, id, label, placeholder, type and autocomplete
//! attribute: shared by `autocomplete-missing` and `input-type-mismatch`.

use crate::model::FormField;

/// The words of an identifier or a label: split at non-alphanumerics and camelCase humps,
/// lowercased; `e-mail`/`e_mail` become `email`.
pub fn words(text: &str) -> Vec<String> {
    let lower_joined = text
        .replace("e-mail", "email")
        .replace("E-mail", "Email")
        .replace("e_mail", "email")
        .replace("E-Mail", "Email");
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in lower_joined.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The words of a field's identifiers: its name and id.
pub fn identifier_words(field: &FormField) -> Vec<String> {
    [field.name.as_deref(), field.id.as_deref()].into_iter().flatten().flat_map(words).collect()
}

/// The words of a field's label text.
pub fn label_words(field: &FormField) -> Vec<String> {
    field.label_text.as_deref().map(words).unwrap_or_default()
}

/// The autofill field name of an `autocomplete` attribute (`section-x shipping tel webauthn`
/// gives `tel`), or `None` for a missing, empty, `on` or `off` value.
pub fn autofill_field_name(autocomplete: Option<&str>) -> Option<String> {
    let tokens: Vec<String> = autocomplete?.split_ascii_whitespace().map(str::to_ascii_lowercase).collect();
    let token = tokens.iter().rev().find(|t| *t != "webauthn")?;
    (token != "on" && token != "off").then(|| token.clone())
}

/// The `inputmode` attribute, read from the element's snippet (the snapshot has no field for it).
pub fn inputmode(field: &FormField) -> Option<String> {
    let lower = field.snippet.to_ascii_lowercase();
    let at = lower.find("inputmode=")? + "inputmode=".len();
    let rest = &lower[at..];
    let value = match rest.chars().next()? {
        q @ ('"' | '\'') => rest[1..].split(q).next()?,
        _ => rest.split([' ', '>', '/']).next()?,
    };
    (!value.is_empty()).then(|| value.to_string())
}

/// Personal data a field collects, each with the autofill field names that fit it
/// (HTML Living Standard, "Autofill", field names table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Email,
    Tel,
    FullName,
    GivenName,
    FamilyName,
    StreetAddress,
    City,
    Region,
    PostalCode,
    Country,
    CardName,
    CardNumber,
    CardExpiry,
    CardCsc,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Email => "email",
            Purpose::Tel => "tel",
            Purpose::FullName => "name",
            Purpose::GivenName => "given-name",
            Purpose::FamilyName => "family-name",
            Purpose::StreetAddress => "street-address",
            Purpose::City => "city",
            Purpose::Region => "region",
            Purpose::PostalCode => "postal-code",
            Purpose::Country => "country",
            Purpose::CardName => "cc-name",
            Purpose::CardNumber => "cc-number",
            Purpose::CardExpiry => "cc-exp",
            Purpose::CardCsc => "cc-csc",
        }
    }

    /// Autofill field names that fit, the preferred one first.
    pub fn tokens(self) -> &'static [&'static str] {
        match self {
            // A login field that takes an email address is correctly `username`.
            Purpose::Email => &["email", "username"],
            Purpose::Tel => &[
                "tel",
                "tel-national",
                "tel-country-code",
                "tel-area-code",
                "tel-local",
                "tel-local-prefix",
                "tel-local-suffix",
                "tel-extension",
            ],
            Purpose::FullName => &["name"],
            Purpose::GivenName => &["given-name"],
            Purpose::FamilyName => &["family-name"],
            Purpose::StreetAddress => &["street-address", "address-line1", "address-line2", "address-line3"],
            Purpose::City => &["address-level2", "address-level3"],
            Purpose::Region => &["address-level1"],
            Purpose::PostalCode => &["postal-code"],
            Purpose::Country => &["country", "country-name"],
            Purpose::CardName => &["cc-name", "cc-given-name", "cc-family-name", "cc-additional-name"],
            Purpose::CardNumber => &["cc-number"],
            Purpose::CardExpiry => &["cc-exp", "cc-exp-month", "cc-exp-year"],
            Purpose::CardCsc => &["cc-csc"],
        }
    }
}

/// Identifier words that make a field about something other than the visitor's own personal data
/// (an email subject, a friend's address, a search box, a newsletter opt-in, a format choice).
const NOT_PERSONAL: &[&str] = &[
    "subject",
    "message",
    "body",
    "comment",
    "comments",
    "note",
    "notes",
    "search",
    "query",
    "coupon",
    "promo",
    "voucher",
    "template",
    "opt",
    "optin",
    "friend",
    "friends",
    "recipient",
    "referral",
    "referee",
    "invitee",
    "colleague",
    "otp",
    "format",
    "type",
    "frequency",
    "preference",
    "preferences",
    "consent",
    "domain",
    "server",
    "host",
    "ip",
];

/// Label words with the same meaning (labels are prose, so fewer words qualify: "Type your
/// email" is still an email field).
const NOT_PERSONAL_LABEL: &[&str] = &[
    "subject",
    "message",
    "comment",
    "search",
    "coupon",
    "promo",
    "voucher",
    "friend",
    "friends",
    "recipient",
    "referral",
    "colleague",
    "invitee",
];

/// Words that make a "name" field something other than a person's name.
const NOT_A_PERSON: &[&str] = &[
    "user",
    "username",
    "login",
    "company",
    "organization",
    "organisation",
    "org",
    "business",
    "file",
    "filename",
    "display",
    "screen",
    "nick",
    "nickname",
    "product",
    "item",
    "pet",
    "team",
    "group",
    "account",
    "project",
    "site",
    "event",
    "street",
    "city",
    "town",
    "country",
    "card",
    "holder",
    "cardholder",
    "bank",
    "app",
    "store",
    "shop",
    "brand",
    "model",
    "school",
    "job",
    "title",
    "tag",
    "list",
    "key",
    "field",
    "space",
    "workspace",
];

fn has(words: &[String], any: &[&str]) -> bool {
    words.iter().any(|w| any.contains(&w.as_str()))
}

fn has_all(words: &[String], all: &[&str]) -> bool {
    all.iter().all(|a| words.iter().any(|w| w == a))
}

/// The personal data a set of words names.
fn classify(w: &[String]) -> Option<Purpose> {
    let card = has(w, &["card", "cc", "credit", "creditcard", "cardholder"]);
    if has(w, &["cvc", "cvv", "cvv2", "csc", "cvn"]) || (card && has_all(w, &["security", "code"])) {
        return Some(Purpose::CardCsc);
    }
    if has(w, &["cardnumber", "ccnumber", "ccnum", "cardnum"]) || (card && has(w, &["number", "num", "no"])) {
        return Some(Purpose::CardNumber);
    }
    let expiry = has(w, &["expiry", "expiration", "expires", "exp", "expdate", "ccexp"]);
    if expiry && (card || has(w, &["month", "year", "date", "mm", "yy", "yyyy"]) || w.len() <= 2) {
        return Some(Purpose::CardExpiry);
    }
    if has(w, &["cardholder", "ccname"]) || (card && has(w, &["name", "holder"])) {
        return Some(Purpose::CardName);
    }
    if has(w, &["email", "emailaddress"]) {
        return Some(Purpose::Email);
    }
    if has(w, &["phone", "tel", "telephone", "mobile", "cellphone", "phonenumber", "fax"]) {
        return Some(Purpose::Tel);
    }
    if has(w, &["firstname", "fname", "givenname", "forename"])
        || has_all(w, &["first", "name"])
        || has_all(w, &["given", "name"])
    {
        return Some(Purpose::GivenName);
    }
    if has(w, &["lastname", "lname", "surname", "familyname"])
        || has_all(w, &["last", "name"])
        || has_all(w, &["family", "name"])
    {
        return Some(Purpose::FamilyName);
    }
    if has(w, &["fullname"]) || (has(w, &["name"]) && !has(w, NOT_A_PERSON)) {
        return Some(Purpose::FullName);
    }
    if has(w, &["zip", "zipcode", "postcode", "postal", "postalcode", "plz"]) {
        return Some(Purpose::PostalCode);
    }
    if has(w, &["city", "town", "locality"]) {
        return Some(Purpose::City);
    }
    if has(w, &["state", "province", "county"]) {
        return Some(Purpose::Region);
    }
    if has(w, &["country"]) {
        return Some(Purpose::Country);
    }
    if has(w, &["address", "addr", "street", "address1", "address2", "addressline1", "addressline2"]) {
        return Some(Purpose::StreetAddress);
    }
    None
}

/// The personal data a field collects, when its signals say so: its name and id first, else its
/// label; `type=email`/`type=tel` count as well. Fields whose identifiers or label say the data
/// is not the visitor's own (a friend's email, an email subject) have none.
pub fn personal_purpose(field: &FormField) -> Option<Purpose> {
    let ident = identifier_words(field);
    let label = label_words(field);
    if has(&ident, NOT_PERSONAL) || has(&label, NOT_PERSONAL_LABEL) {
        return None;
    }
    let by_type = match field.type_.as_str() {
        "email" => Some(Purpose::Email),
        "tel" => Some(Purpose::Tel),
        _ => None,
    };
    classify(&ident).or(by_type).or_else(|| classify(&label))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str, label: Option<&str>) -> FormField {
        FormField {
            tag: "input".into(),
            type_: "text".into(),
            name: Some(name.into()),
            label_text: label.map(str::to_string),
            ..Default::default()
        }
    }

    #[test]
    fn splits_identifiers_into_words() {
        assert_eq!(words("billingFirstName"), vec!["billing", "first", "name"]);
        assert_eq!(words("user[e-mail]"), vec!["user", "email"]);
        assert_eq!(words("address_line_2"), vec!["address", "line", "2"]);
        assert_eq!(words("PHONE-number"), vec!["phone", "number"]);
        assert_eq!(words("Votre nom"), vec!["votre", "nom"]);
    }

    #[test]
    fn reads_autofill_field_names() {
        assert_eq!(autofill_field_name(Some("section-a shipping tel webauthn")).as_deref(), Some("tel"));
        assert_eq!(autofill_field_name(Some("EMAIL")).as_deref(), Some("email"));
        assert_eq!(autofill_field_name(Some("off")), None);
        assert_eq!(autofill_field_name(Some(" ")), None);
        assert_eq!(autofill_field_name(None), None);
    }

    #[test]
    fn reads_inputmode_from_the_snippet() {
        let f = FormField { snippet: "<input name=\"zip\" inputmode='numeric'>".into(), ..Default::default() };
        assert_eq!(inputmode(&f).as_deref(), Some("numeric"));
        let f = FormField { snippet: "<input name=\"zip\" InputMode=tel>".into(), ..Default::default() };
        assert_eq!(inputmode(&f).as_deref(), Some("tel"));
        assert_eq!(inputmode(&FormField { snippet: "<input name=x>".into(), ..Default::default() }), None);
    }

    #[test]
    fn recognises_personal_data() {
        let p = |name: &str| personal_purpose(&named(name, None));
        assert_eq!(p("email"), Some(Purpose::Email));
        assert_eq!(p("customer_email_address"), Some(Purpose::Email));
        assert_eq!(p("billingFirstName"), Some(Purpose::GivenName));
        assert_eq!(p("surname"), Some(Purpose::FamilyName));
        assert_eq!(p("name"), Some(Purpose::FullName));
        assert_eq!(p("mobile_phone"), Some(Purpose::Tel));
        assert_eq!(p("zip"), Some(Purpose::PostalCode));
        assert_eq!(p("address_line_1"), Some(Purpose::StreetAddress));
        assert_eq!(p("card_number"), Some(Purpose::CardNumber));
        assert_eq!(p("cvv"), Some(Purpose::CardCsc));
        assert_eq!(p("exp_month"), Some(Purpose::CardExpiry));
        assert_eq!(p("name_on_card"), Some(Purpose::CardName));
        assert_eq!(personal_purpose(&named("f1", Some("E-mail address"))), Some(Purpose::Email));
    }

    #[test]
    fn leaves_other_fields_alone() {
        for name in [
            "username",
            "company_name",
            "email_subject",
            "friend_email",
            "q",
            "search",
            "file_name",
            "coupon_code",
            "message",
            "phone_type",
        ] {
            assert_eq!(personal_purpose(&named(name, None)), None, "{name}");
        }
        assert_eq!(personal_purpose(&named("f2", Some("Your friend's email"))), None);
        assert_eq!(personal_purpose(&named("f3", Some("Name of your company"))), None);
        // Prose in a label does not veto: "Type your email" is an email field.
        assert_eq!(personal_purpose(&named("f4", Some("Type your email"))), Some(Purpose::Email));
    }
}
