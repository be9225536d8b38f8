-- spindle_worker must see one organisation at a time (issue 11, defect 11). 20261123130000 made
-- it a member of spindle_system so its cross-tenant jobs can SET LOCAL ROLE spindle_system, but a
-- member inherits the role's privileges and its row-level-security policy (spindle_cross_tenant
-- USING (true)), so a per-organisation job that forgot its organisation saw every tenant.
-- NOINHERIT keeps the membership (SET ROLE still works) without the inheritance: on PostgreSQL 15
-- and older the attribute decides, on 16 and later the grant's INHERIT option, which a new grant
-- takes from the attribute, hence revoke, alter, grant again.
REVOKE spindle_system FROM spindle_worker;
ALTER ROLE spindle_worker NOINHERIT;
GRANT spindle_system TO spindle_worker;
