// The loopback floor of a fan-out: one process writes a 300-byte message to each of N TCP sockets (one write per
// socket, as the live hub does); a second process on the other core waits in epoll and reads everything.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <sys/resource.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);sched_setaffinity(0,sizeof s,&s);}
int main(int argc,char**argv){
  int n=argc>1?atoi(argv[1]):10000; struct rlimit r={65536,65536}; setrlimit(RLIMIT_NOFILE,&r);
  int l=socket(AF_INET,SOCK_STREAM,0); struct sockaddr_in a={0}; a.sin_family=AF_INET; a.sin_addr.s_addr=htonl(0x7f000001);
  bind(l,(void*)&a,sizeof a); listen(l,65535); socklen_t len=sizeof a; getsockname(l,(void*)&a,&len);
  int *cl=malloc(n*sizeof(int)),*sv=malloc(n*sizeof(int)); int one=1;
  for(int i=0;i<n;i++){cl[i]=socket(AF_INET,SOCK_STREAM,0); connect(cl[i],(void*)&a,sizeof a); sv[i]=accept(l,0,0); setsockopt(sv[i],IPPROTO_TCP,TCP_NODELAY,&one,sizeof one);}
  pid_t child=fork();
  if(child==0){ pin(1); for(int i=0;i<n;i++) close(sv[i]);
    int ep=epoll_create1(0); for(int i=0;i<n;i++){struct epoll_event e={.events=EPOLLIN,.data.fd=cl[i]}; epoll_ctl(ep,EPOLL_CTL_ADD,cl[i],&e);}
    struct epoll_event ev[512]; char buf[65536];
    for(;;){int k=epoll_wait(ep,ev,512,-1); for(int j=0;j<k;j++){ if(read(ev[j].data.fd,buf,sizeof buf)<=0) _exit(0);} } }
  pin(0); for(int i=0;i<n;i++) close(cl[i]);
  char msg[300]; memset(msg,'x',300); usleep(200000);
  for(int round=0;round<5;round++){ double t=now(); for(int i=0;i<n;i++) write(sv[i],msg,300); double d=now()-t;
    printf("%d sockets: %.1f ms for the round, %.2f us per write\n",n,d*1e3,d/n*1e6); usleep(300000);}
  for(int i=0;i<n;i++) close(sv[i]); kill(child,9); wait(0); return 0;}
