import pytest

from pipeline.domain.rendering import (
    Rendered,
    missing_personalisation,
    personalisation_map,
    placeholder_names,
    render,
)
from pipeline.domain.rendering.markdown import markdown_to_html


def html_of(body, values=None, subject="Subject"):
    return render("email", body, subject, values or {}).html


# --- placeholder discovery -------------------------------------------------------------------


def test_placeholder_names_in_order_of_first_appearance_first_spelling_wins():
    assert placeholder_names("Hi ((First Name)), ((ref))", "((first_name)) ((show??yes)) ((REF))") == [
        "First Name",
        "ref",
        "show",
    ]


def test_placeholder_names_ignores_empty_and_unclosed_brackets():
    assert placeholder_names("(()) ((  )) ((a) (b)) ((??x)) (((c)))") == ["c"]
    assert placeholder_names("", None) == []


def test_personalisation_map():
    assert personalisation_map("((a)) ((b??text))", "((A))") == {"a": {"required": True}, "b": {"required": True}}
    assert personalisation_map("no placeholders") == {}


@pytest.mark.parametrize("key", ["first_name", "FIRST-NAME", "firstname", "First Name", " first  name "])
def test_missing_personalisation_matches_normalised_names(key):
    assert missing_personalisation(["Hi ((First Name))"], {key: "Ann"}) == []


def test_missing_personalisation_lists_template_spellings():
    texts = ["Dear ((First Name)) ((ref))", "Subject ((when??soon))"]
    assert missing_personalisation(texts, {"REF": "1", "extra": "ignored"}) == ["First Name", "when"]
    assert missing_personalisation(texts, None) == ["First Name", "ref", "when"]
    assert missing_personalisation(["((a))"], {"a": None}) == ["a"]
    assert missing_personalisation(["((a))"], {"a": ""}) == []
    assert missing_personalisation("((a))", {}) == ["a"]


# --- filling -------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["first_name", "FIRST-NAME", "firstname", "First Name"])
def test_values_fill_placeholders_regardless_of_case_spaces_underscores_hyphens(key):
    assert render("sms", "Hi ((First Name))!", None, {key: "Ann"}).body == "Hi Ann!"


def test_value_types():
    values = {"a": None, "b": 3, "c": 2.5, "d": "x", "e": True}
    assert render("sms", "[((a))][((b))][((c))][((d))][((e))]", None, values).body == "[][3][2.5][x][True]"


def test_value_is_not_filled_twice():
    assert render("sms", "((a)) ((b))", None, {"a": "((b))", "b": "B"}).body == "((b)) B"


def test_placeholder_without_value_is_left_as_written():
    assert render("sms", "Hi ((Name))", None, {}).body == "Hi ((Name))"


@pytest.mark.parametrize("value", [True, 1, "yes", "Y", "TRUE", "1", " yes ", "ja", "JA", " Ja ", "j"])
def test_conditional_placeholder_shown(value):
    assert render("sms", "Hi((vip?? and welcome back)).", None, {"VIP": value}).body == "Hi and welcome back."


@pytest.mark.parametrize("value", [False, 0, "no", "n", "false", "0", "", None, "maybe", ["x"], "nee", "jawel"])
def test_conditional_placeholder_hidden(value):
    assert render("sms", "Hi((vip?? and welcome back)).", None, {"vip": value}).body == "Hi."


def test_conditional_placeholder_without_value_is_hidden():
    assert render("email", "Hi((vip?? and welcome back)).", "S", {}).body == "Hi."


# --- sms -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("items", "text"),
    [(["a", "b", "c"], "a, b and c"), (["a", "b"], "a and b"), (["a"], "a"), ([], ""), (["a", None, " "], "a")],
)
def test_sms_list(items, text):
    assert render("sms", "You need: ((items))", None, {"items": items}).body == f"You need: {text}".strip()


def test_sms_is_stripped_not_markdown_and_keeps_line_endings():
    rendered = render("sms", "  # Hi **((name))**\r\nsee [x](y)\u200b \n", "ignored", {"name": "<b>"})
    assert rendered == Rendered(body="# Hi **<b>**\r\nsee [x](y)", subject=None, html=None)


def test_sms_odd_spaces_become_plain_spaces():
    assert render("sms", "a\u00a0b", None, {}).body == "a b"


# --- email -----------------------------------------------------------------------------------


def test_email_body_is_plain_text_with_template_line_endings():
    rendered = render("email", "Dear ((name)),\r\n\r\n# Heading\r\nBye", "Hi ((name))", {"name": "<Ann>"})
    assert rendered.body == "Dear <Ann>,\r\n\r\n# Heading\r\nBye"
    assert rendered.subject == "Hi <Ann>"


def test_email_html_layout():
    html = render("email", "Hello", "Your <b> & ((x))", {"x": "order"}).html
    assert html.startswith("<!DOCTYPE html>\n<html lang=\"nl\">")
    assert "<title>Your &lt;b&gt; &amp; order</title>" in html
    assert 'role="presentation"' in html
    assert html.rstrip().endswith("</html>")


def test_email_html_is_deterministic():
    assert html_of("((a))", {"a": ["x", "y"]}) == html_of("((a))", {"a": ["x", "y"]})


def test_email_values_are_html_escaped():
    html = html_of("Hi ((name))", {"name": '<script>alert("x")</script> & <b onclick=1>'})
    assert "<script" not in html and "<b " not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b onclick=1&gt;" in html


def test_raw_html_in_template_is_escaped():
    html = html_of("<div>\nhi\n</div>\n\n<img src=x onerror=alert(1)>")
    assert "<div>\nhi" not in html and "<img" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_markdown_in_values_is_interpreted():
    html = html_of("See ((link))", {"link": "[the form](https://example.gov/form)"})
    assert '<a style="word-wrap: break-word; color: #1d70b8;" href="https://example.gov/form">the form</a>' in html


def test_backslash_escaped_brackets_in_a_value_prevent_a_link():
    html = html_of("See ((link))", {"link": "\\[the form\\]\\(https://evil.example\\)"})
    assert ">the form</a>" not in html
    # Only the bare URL itself is linked, showing where it goes.
    assert ('See [the form](<a style="word-wrap: break-word; color: #1d70b8;" href="https://evil.example">'
            'https://evil.example</a>)') in html


@pytest.mark.parametrize(
    "markdown",
    ["[click](javascript:alert(1))", "[click](JavaScript:alert(1))", "[click]( javascript:alert(1))",
     "[click](data:text/html,x)", "<javascript:alert(1)>", "[click](/relative)"],
)
def test_only_http_links_become_anchors(markdown):
    html = markdown_to_html(markdown)
    assert "<a" not in html and "href" not in html


def test_javascript_link_keeps_only_its_text():
    assert markdown_to_html("[click](javascript:alert(1))").endswith(">click</p>")


def test_bare_urls_are_autolinked():
    html = markdown_to_html("Go to https://example.gov/a?b=1&c=2. Then www.example.gov")
    assert ('href="https://example.gov/a?b=1&amp;c=2">https://example.gov/a?b=1&amp;c=2</a>.'
            ' Then www.example.gov') in html
    assert markdown_to_html("<https://example.gov>").count("href=") == 1


def test_paragraphs_and_line_breaks():
    html = markdown_to_html("one\ntwo\n\nthree")
    assert html == (
        '<p style="margin: 0 0 20px 0; font-size: 19px; line-height: 25px; color: #0b0c0c;">one<br>\ntwo</p>\n'
        '<p style="margin: 0 0 20px 0; font-size: 19px; line-height: 25px; color: #0b0c0c;">three</p>'
    )


def test_headings():
    html = markdown_to_html("# Big\n## Small\n### Smaller")
    assert ">Big</h2>" in html and html.count("<h3") == 2 and "<h1" not in html


@pytest.mark.parametrize("bullet", ["*", "-", "•", "+"])
def test_bullet_lists(bullet):
    html = markdown_to_html(f"Intro\n\n{bullet} one\n{bullet} two")
    assert html.count("<ul") == 1
    assert ('<li style="margin: 5px 0; padding: 0 0 0 5px; font-size: 19px; line-height: 25px; color: #0b0c0c;">'
            'one</li>') in html
    assert ">two</li>" in html


def test_bullet_without_space():
    assert ">one</li>" in markdown_to_html("•one\n•two")


def test_numbered_list():
    html = markdown_to_html("1. one\n2. two")
    assert html.startswith('<ol style="margin: 0 0 20px 0; padding: 0 0 0 20px; list-style-type: decimal;">')
    assert ">two</li>" in html
    assert ' start="3"' in markdown_to_html("3. three")


def test_horizontal_rule_even_right_after_a_paragraph():
    html = markdown_to_html("above\n---\nbelow")
    assert "<h2" not in html
    assert ">above</p>\n<hr " in html and ">below</p>" in html


def test_inset_text():
    html = markdown_to_html("^ You must pay by Friday\n\nAfter")
    assert html.startswith('<blockquote style="')
    assert ">You must pay by Friday</p>\n</blockquote>" in html


def test_greater_than_is_not_a_quote():
    html = markdown_to_html("> not a quote")
    assert "<blockquote" not in html and ">&gt; not a quote</p>" in html


@pytest.mark.parametrize("markdown", ["*em* **strong** _u_", "`code`", "    indented", "```\nfenced\n```"])
def test_unsupported_markdown_stays_text(markdown):
    html = markdown_to_html(markdown)
    for tag in ("<em", "<strong", "<code", "<pre"):
        assert tag not in html


def test_email_list_value():
    rendered = render("email", "You need:\n((items))\nThanks", "S", {"items": ["a", "<b>", 3]})
    assert rendered.body == "You need:\n\n\n* a\n* <b>\n* 3\n\n\nThanks"
    assert ">You need:</p>\n<ul" in rendered.html
    assert ">&lt;b&gt;</li>" in rendered.html and ">3</li>" in rendered.html
    assert "</ul>\n<p" in rendered.html


def test_email_list_uses_template_line_endings_and_trims_ends():
    rendered = render("email", "((items))", "S", {"items": ["a", "b"]})
    assert rendered.body == "* a\n* b"
    assert render("email", "x\r\n((items))", "S", {"items": ["a"]}).body == "x\r\n\r\n\r\n* a"


def test_empty_list_in_email():
    assert render("email", "x ((items)) y", "S", {"items": []}).body == "x  y"


def test_subject_collapses_whitespace_and_lists():
    rendered = render("email", "b", "  Hello\n((name))\r\n  about ((items)) ", {"name": "*Ann*", "items": ["a", "b"]})
    assert rendered.subject == "Hello *Ann* about a and b"


# --- letter ----------------------------------------------------------------------------------


def test_letter_has_heading_and_markdown_body_but_no_html():
    rendered = render("letter", "Dear ((name))\n((items))", "Your ((thing))",
                      {"name": "Ann", "items": ["a", "b"], "thing": "tax"})
    assert rendered == Rendered(body="Dear Ann\n\n\n* a\n* b", subject="Your tax", html=None)


def test_unknown_template_type():
    with pytest.raises(ValueError):
        render("fax", "x", None, {})


def test_a_letters_address_line_in_dutch_is_the_specs():
    from pipeline.domain.rendering import normalise_key
    from pipeline.domain.rendering.address_names import in_spec_names, shown_name, spec_name

    assert normalise_key("Adresregel 3") == normalise_key("address_line_3") == "addressline3"
    assert normalise_key("adresregel_8") == "adresregel8"  # an address has 7 lines: any other name is a name
    assert render("letter", "Beste ((adresregel_1))", "Aan ((Adresregel 2))",
                  {"address_line_1": "A. Jansen", "address_line_2": "Kerkstraat 1"}).body == "Beste A. Jansen"
    assert [spec_name(name) for name in ("Adresregel 7", "ADDRESS LINE 1", "Postcode", "naam")] == [
        "address_line_7", "address_line_1", "postcode", None]
    assert in_spec_names({"adresregel 1": "a", "Address line 2": "b", "adresregel_2": "c", "naam": "d"}) == {
        "address_line_1": "a", "Address line 2": "b", "naam": "d"}  # the spec's spelling wins over its Dutch twin
    assert (shown_name("address_line_2", "nl"), shown_name("address_line_2", "en")) == (
        "adresregel 2", "address line 2")
