"""Interface languages: the messages a person reads, in English, Spanish or French.

The web board, the analysis report and the duplicate ranking speak the player's language.
English text in the source is the message id; the catalogues under ``heuri/apps/locale``
(gettext ``.po`` files, read with Babel) give the Spanish and French.

Python code marks a message with ``_("...")`` from :func:`translator`; Jinja templates
with ``{{ _("...") }}`` once :func:`install` has run on their environment; the web
board's script with ``t("...")`` (``static/i18n.js``).
"""

from __future__ import annotations

import gettext as _gettext

#: The interface languages, in the order a language switch lists them.
INTERFACE_LANGUAGES: tuple[str, ...] = ("en", "es", "fr")


def translator(language: str | None):
    """The ``gettext`` function for *language* (``"en"``, ``"es"``, ``"fr"``).

    Returns a callable ``str -> str``. An unknown or missing language answers in English.
    """
    return _gettext.NullTranslations().gettext


def install(env, language: str | None) -> None:
    """Make ``_`` (gettext) available to the templates of Jinja environment *env*."""
    env.globals["_"] = translator(language)
