"""The schema a fresh install's migrations make is the schema the models declare: a model changed without
a migration (a type, a nullability, a default, an index, a foreign key) fails here, naming the table and
the column, on the database the suite runs against."""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator

import models
from models.db import BaseModel
from models.migrations import migrate
from tests.private_databases import private_database, using
from tests.schema_shape import differences, schema_shape


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def table_models() -> list[type[BaseModel]]:
    """Every model of models/ that has a table: a class others inherit their fields from has none."""
    for module in pkgutil.iter_modules(models.__path__):
        importlib.import_module(f"models.{module.name}")
    found = {cls for cls in _subclasses(BaseModel) if cls.__module__.startswith("models.")}
    return sorted((cls for cls in found if not cls.__subclasses__()), key=lambda cls: cls._meta.table_name)


def test_a_fresh_install_has_the_schema_the_models_declare():
    with private_database("migrated") as migrated, private_database("declared") as declared:
        with using(migrated):
            migrate()
        with using(declared):
            declared.create_tables(table_models())

        assert differences(schema_shape(declared), schema_shape(migrated)) == []


def test_a_model_changed_without_a_migration_is_named_with_its_column(monkeypatch):
    from models.service import Service

    monkeypatch.setattr(Service.name, "null", True)  # as if someone made a service's name optional
    with private_database("migrated") as migrated, private_database("declared") as declared:
        with using(migrated):
            migrate()
        with using(declared):
            declared.create_tables(table_models())

        found = differences(schema_shape(declared), schema_shape(migrated))

    assert len(found) == 1
    assert found[0].startswith("table service column name: expected {'type': ")
    assert "'null': True" in found[0].split("found")[0] and "'null': False" in found[0].split("found")[1]
