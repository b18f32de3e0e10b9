"""heuri's version, the one place it is written (``heuri --version``, SIU's ``id version``)."""
__version__ = "0.1.0"
