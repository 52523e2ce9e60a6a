/*
 * protocol/rsp_query.h: handlers for qXfer objects, LLDB's queries and
 * monitor commands.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_QUERY_H
#define HINDSIGHT_PROTOCOL_RSP_QUERY_H

#include "protocol/rsp_packet.h"

struct rsp_server;

int rsp_handle_xfer(struct rsp_server *s, struct rsp_request *req);
int rsp_handle_monitor(struct rsp_server *s, struct rsp_request *req);
int rsp_handle_host_info(struct rsp_server *s, struct rsp_request *req);
int rsp_handle_process_info(struct rsp_server *s, struct rsp_request *req);
int rsp_handle_shlib_info_addr(struct rsp_server *s, struct rsp_request *req);
int rsp_handle_memory_region(struct rsp_server *s, struct rsp_request *req);

#endif
