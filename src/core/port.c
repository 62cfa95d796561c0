/*
 * port.c
 *	  Names of the shared enums (see port.h); built in both modes.
 */
#include "port.h"

const char *
iso_status_name(IsoStatus status)
{
	switch (status)
	{
		case ISO_STATUS_OK:
			return "ok";
		case ISO_STATUS_FAIL:
			return "fail";
		case ISO_STATUS_INFO:
			return "info";
	}
	return "unknown";
}

const char *
iso_op_name(IsoOpKind op)
{
	switch (op)
	{
		case ISO_OP_READ:
			return "r";
		case ISO_OP_WRITE:
			return "w";
		case ISO_OP_APPEND:
			return "append";
	}
	return "unknown";
}

const char *
iso_workload_name(IsoWorkload workload)
{
	switch (workload)
	{
		case ISO_WORKLOAD_LIST_APPEND:
			return "list-append";
		case ISO_WORKLOAD_RW_REGISTER:
			return "rw-register";
		case ISO_WORKLOAD_UNKNOWN:
			break;
	}
	return "unknown";
}

/* The names iso_history.metadata->>'realtime' uses. */
const char *
iso_time_source_name(IsoTimeSource source)
{
	switch (source)
	{
		case ISO_TIME_VALUES:
			return "time values";
		case ISO_TIME_RECORD_ORDER:
			return "record order";
		case ISO_TIME_NONE:
			break;
	}
	return "none";
}
