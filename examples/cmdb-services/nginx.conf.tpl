# ${Scope} on ${bk_host_innerip}
worker_processes 2;
pid ${WorkPath}/run/nginx_${LocalInstID}.pid;
events { worker_connections 1024; }
http {
  server {
    listen ${LocalInstID + 8079};
    server_name ${bk_set_name}-${bk_module_name}-${LocalInstID};
    add_header X-Served-By "${this.cc_host.attrib["bk_host_innerip"]}#${LocalInstID}";
    location /healthz { return 200 "ok\n"; }
  }
}
