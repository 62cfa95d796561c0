/* isograph--0.2.0--0.3.0.sql: Elle-agreeing inference, hardening */

\echo Use "ALTER EXTENSION isograph UPDATE TO '0.3.0'" to load this file. \quit
