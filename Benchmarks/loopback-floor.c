// The loopback floor of a fan-out: one process writes a 300-byte message to each of N TCP sockets (one write per
// socket, as the live hub does) while readers wait in epoll and read everything.
// With W = 1 (the default): one writer on core 0, one reader on core 1.
// With W = 2: two writer threads on cores 0 and 1, each writing to half of the sockets, and two readers on the same
// two cores: the whole machine, as when the server and its clients share both cores.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <time.h>
#include <pthread.h>
#include <signal.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <sys/resource.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);sched_setaffinity(0,sizeof s,&s);}
static int n, writers, *sv; static char msg[300]; static pthread_barrier_t start, done;
static void *writer(void *arg){ long w=(long)arg; pin((int)w);
  for(int round=0;round<5;round++){ pthread_barrier_wait(&start);
    for(int i=(int)w;i<n;i+=writers) write(sv[i],msg,300);
    pthread_barrier_wait(&done);} return 0;}
int main(int argc,char**argv){
  n=argc>1?atoi(argv[1]):10000; writers=argc>2?atoi(argv[2]):1; if(writers<1||writers>2) writers=1;
  struct rlimit r={65536,65536}; setrlimit(RLIMIT_NOFILE,&r);
  int l=socket(AF_INET,SOCK_STREAM,0); struct sockaddr_in a={0}; a.sin_family=AF_INET; a.sin_addr.s_addr=htonl(0x7f000001);
  bind(l,(void*)&a,sizeof a); listen(l,65535); socklen_t len=sizeof a; getsockname(l,(void*)&a,&len);
  int *cl=malloc(n*sizeof(int)); sv=malloc(n*sizeof(int)); int one=1;
  for(int i=0;i<n;i++){cl[i]=socket(AF_INET,SOCK_STREAM,0); connect(cl[i],(void*)&a,sizeof a); sv[i]=accept(l,0,0); setsockopt(sv[i],IPPROTO_TCP,TCP_NODELAY,&one,sizeof one);}
  pid_t readers[2];
  for(int k=0;k<writers;k++){ readers[k]=fork();
    if(readers[k]==0){ pin(writers==1?1:k); for(int i=0;i<n;i++) close(sv[i]);
      int ep=epoll_create1(0); for(int i=k;i<n;i+=writers){struct epoll_event e={.events=EPOLLIN,.data.fd=cl[i]}; epoll_ctl(ep,EPOLL_CTL_ADD,cl[i],&e);}
      struct epoll_event ev[512]; char buf[65536];
      for(;;){int c=epoll_wait(ep,ev,512,-1); for(int j=0;j<c;j++){ if(read(ev[j].data.fd,buf,sizeof buf)<=0) _exit(0);} } } }
  for(int i=0;i<n;i++) close(cl[i]);
  memset(msg,'x',300); usleep(200000);
  pthread_barrier_init(&start,0,writers+1); pthread_barrier_init(&done,0,writers+1);
  pthread_t t[2]; for(long w=0;w<writers;w++) pthread_create(&t[w],0,writer,(void*)w);
  for(int round=0;round<5;round++){ usleep(300000); double s=now(); pthread_barrier_wait(&start); pthread_barrier_wait(&done); double d=now()-s;
    printf("%d sockets, %d writer core(s): %.1f ms for the round, %.2f us per write\n",n,writers,d*1e3,d/n*1e6);}
  for(int w=0;w<writers;w++) pthread_join(t[w],0);
  for(int i=0;i<n;i++) close(sv[i]); for(int k=0;k<writers;k++){kill(readers[k],9); waitpid(readers[k],0,0);} return 0;}
